package com.teamdesk.tasks.it.contract;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The contract server of the test build (issue 50): the production WAR that {@code scripts/contract-server.sh}
 * starts in {@code pre-integration-test}, and the OpenAPI document it served, saved as JSON. Failsafe passes their
 * places as system properties; when either is missing the test fails and says why (it never skips).
 */
public final class ContractServer {
    private ContractServer() {
    }

    /** @return the server's root, e.g. {@code http://127.0.0.1:18190/} */
    public static URI root() {
        return URI.create(read("teamdesk.contract.urlFile").strip());
    }

    /** @return the document {@code GET /openapi} answered (JSON), as the generator read it */
    public static String document() {
        return read("teamdesk.contract.spec");
    }

    private static String read(String property) {
        String file = System.getProperty(property);
        if (file == null) {
            throw new IllegalStateException("system property " + property + " is not set: run the ITs through Maven (mvn verify)");
        }
        Path path = Path.of(file);
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException(path + " is missing: the contract server did not run"
                    + " (scripts/contract-server.sh start, pre-integration-test; skipped with -Dteamdesk.contract.skip=true)");
        }
        try {
            return Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
