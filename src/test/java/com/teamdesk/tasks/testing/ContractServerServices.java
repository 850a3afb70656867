package com.teamdesk.tasks.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the contract server of the test build ({@code scripts/contract-server.sh}, issue 50) needs around it,
 * run by Maven (exec-maven-plugin) on the test classpath:
 * <ul>
 * <li>{@code before <prefix file>}: the test database exists ({@link TestDatabase#ensure()}, before the
 * server's Flyway runs) and a new Redis prefix of its own ({@code it-contract-<8 hex>}, recorded in the
 * run's ledger) is written to {@code <prefix file>}, which the script reads;</li>
 * <li>{@code after <prefix file>}: once the server has stopped, the keys under that prefix are deleted.</li>
 * </ul>
 * Any failure ends the JVM with a non-zero status, and so the build.
 */
public final class ContractServerServices {

    private ContractServerServices() {
    }

    /**
     * @param args {@code before|after} and the path of the prefix file
     * @throws IOException when the prefix file cannot be written or read
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: ContractServerServices before|after <prefix file>");
        }
        Path file = Path.of(args[1]);
        switch (args[0]) {
            case "before" -> {
                TestDatabase.ensure();
                String prefix = TestRedisPrefixes.create("it-contract");
                Files.createDirectories(file.toAbsolutePath().getParent());
                Files.writeString(file, prefix, StandardCharsets.UTF_8);
            }
            case "after" -> {
                if (!Files.exists(file)) {
                    return; // the server never started
                }
                String prefix = Files.readString(file, StandardCharsets.UTF_8).strip();
                long keys = TestRedisPrefixes.delete(prefix);
                Files.delete(file);
                System.out.println("[contract-server] deleted " + keys + " Redis keys under " + prefix);
            }
            default -> throw new IllegalArgumentException("unknown step " + args[0]);
        }
    }
}
