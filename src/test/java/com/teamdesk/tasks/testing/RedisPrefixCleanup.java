package com.teamdesk.tasks.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The Redis prefixes of one test class that starts its own servers, deleted after the class: register it as
 * {@code @RegisterExtension static final RedisPrefixCleanup REDIS = new RedisPrefixCleanup();} and take
 * prefixes from {@link #create(String)}. Its {@code afterAll} runs after the class's own {@code @AfterAll}
 * methods, which stop the servers, so nothing writes under the prefixes any more when it deletes them.
 */
public final class RedisPrefixCleanup implements AfterAllCallback {
    private final List<String> prefixes = new CopyOnWriteArrayList<>();

    /**
     * @param family what the prefix is for, e.g. {@code it-scale}
     * @return a new random prefix ({@link TestRedisPrefixes#create(String)}), deleted after the class
     */
    public String create(String family) {
        String prefix = TestRedisPrefixes.create(family);
        prefixes.add(prefix);
        return prefix;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        for (String prefix : prefixes) {
            TestRedisPrefixes.delete(prefix);
        }
        prefixes.clear();
    }
}
