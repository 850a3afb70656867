package com.teamdesk.tasks.it.support;

import com.teamdesk.tasks.testing.TestRedisPrefixes;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.jboss.shrinkwrap.api.Node;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * Builds the WAR an integration-test class deploys: the real application
 * ({@code target/teamdesk-tasks.war}, built by {@code package} before failsafe runs; path in the
 * system property {@code teamdesk.warFile}) plus this support package, the given test classes,
 * and the test class's MicroProfile Config overrides.
 *
 * <p>Overrides go into the deployment's own {@code WEB-INF/classes/META-INF/microprofile-config.properties}
 * (the original's content with the overridden keys replaced and new ones appended), never into
 * environment variables: the environment outranks the file, so a key set there would leak into
 * every class and could not be changed per class. The environment ({@code ./teamdesk test}) only
 * carries what is the same for the whole run: database URL, Redis URL, JWT public key and issuer.
 *
 * <p>Every deployment gets its own random {@code teamdesk.redis.prefix}, so queues, locks and
 * heartbeats of one test class never meet another's (or a developer's server on the same Redis); its
 * keys (or those of a prefix the class sets itself) are deleted at the end of the test session
 * ({@link TestRedisPrefixes#deleteAtSessionEnd(String)}).
 * The archive is named {@code ROOT.war}: the app answers at {@code /}, as in production.
 */
public final class TestDeployments {
    /** Path of the application's config file inside the WAR. */
    public static final String CONFIG = "WEB-INF/classes/META-INF/microprofile-config.properties";

    private TestDeployments() {
    }

    /**
     * @param configOverrides MicroProfile Config keys to set for this deployment, e.g.
     *                        {@code Map.of("teamdesk.worker.lock-duration-ms", "1000")}
     * @param extra           test classes (and CDI alternatives) to add next to the support package
     * @return the deployment: application + support + extras + overridden config
     */
    public static WebArchive app(Map<String, String> configOverrides, Class<?>... extra) {
        File war = new File(System.getProperty("teamdesk.warFile", "target/teamdesk-tasks.war"));
        if (!war.isFile()) {
            throw new IllegalStateException("No application WAR at " + war.getAbsolutePath()
                    + ": run the ITs through Maven (mvn verify), which packages it first");
        }
        WebArchive archive = ShrinkWrap.create(ZipImporter.class, "ROOT.war").importFrom(war).as(WebArchive.class);
        archive.addPackage(TestDeployments.class.getPackage());
        if (extra.length > 0) {
            archive.addClasses(extra);
        }
        Map<String, String> overrides = new LinkedHashMap<>();
        overrides.put("teamdesk.redis.prefix", "it-" + UUID.randomUUID().toString().substring(0, 8));
        overrides.putAll(configOverrides);
        // its keys go when the session ends: the container stops the server without waiting for it
        TestRedisPrefixes.deleteAtSessionEnd(overrides.get("teamdesk.redis.prefix"));
        String config = overrideConfig(read(archive.get(CONFIG)), overrides);
        archive.delete(CONFIG);
        archive.add(new StringAsset(config), CONFIG);
        return archive;
    }

    /** @return the deployment with only the default test settings (random Redis prefix) */
    public static WebArchive app(Class<?>... extra) {
        return app(Map.of(), extra);
    }

    /**
     * @return {@code original} with the lines of overridden keys replaced in place and the other
     *         overrides appended (properties-file syntax; values are written as given)
     */
    static String overrideConfig(String original, Map<String, String> overrides) {
        Map<String, String> left = new LinkedHashMap<>(overrides);
        StringBuilder out = new StringBuilder();
        for (String line : original.split("\\R", -1)) {
            String key = keyOf(line);
            if (key != null && left.containsKey(key)) {
                out.append(key).append('=').append(left.remove(key)).append('\n');
            } else {
                out.append(line).append('\n');
            }
        }
        if (!left.isEmpty()) {
            out.append("\n# Integration-test overrides (TestDeployments)\n");
            left.forEach((k, v) -> out.append(k).append('=').append(v).append('\n'));
        }
        return out.toString();
    }

    private static String keyOf(String line) {
        String t = line.strip();
        if (t.isEmpty() || t.startsWith("#") || t.startsWith("!")) {
            return null;
        }
        int eq = t.indexOf('=');
        return (eq < 0 ? t : t.substring(0, eq)).strip();
    }

    private static String read(Node node) {
        if (node == null || node.getAsset() == null) {
            throw new IllegalStateException("The application WAR has no " + CONFIG);
        }
        try (InputStream in = node.getAsset().openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
