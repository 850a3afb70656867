package com.teamdesk.tasks.it.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.support.TestDeployments;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Prometheus scrapes a server from its start. A scrape runs on a thread of the server, which sees the server's
 * configuration only, not the WAR's {@code microprofile-config.properties}; the beans that the gauges read
 * ({@code UrgentWork}, {@code BackgroundStatements}) must therefore exist before it, created while the application
 * starts with the WAR's settings. Found in the house step: a bean first created by a scrape kept the defaults.
 *
 * <p>One server (a test WAR whose settings differ from the defaults, worker and timers off so nothing but the
 * scrapes reaches it; its own schema and Redis prefix), scraped from its boot ({@link ServerProcess#awaitReady});
 * its log says which settings the urgent-work gate read.
 */
class ScrapeFromBootIT {
    @RegisterExtension
    static final ClassResources RESOURCES = new ClassResources();

    private static final Duration READY = Duration.ofSeconds(180);

    @Test
    void beansTheGaugesReadKeepTheWarsSettings() throws Exception {
        PrivateSchema data = RESOURCES.schema();
        String prefix = RESOURCES.prefix("it-scrape");
        Path war = Files.createDirectories(Path.of("target", "lifecycle")).resolve("scrape-from-boot.war");
        TestDeployments.app(Map.of("teamdesk.redis.prefix", prefix, "teamdesk.worker.enabled", "false",
                "teamdesk.timers.enabled", "false", "teamdesk.worker.background-yield-ms", "40",
                "teamdesk.worker.urgent-handover-ms", "250")).as(ZipExporter.class).exportTo(war.toFile(), true);
        ServerProcess server = RESOURCES.add(ServerProcess.start("scrape", war, Map.of("TEAMDESK_DB_URL", data.url())));
        server.awaitReady(READY);

        HttpResponse<String> metrics = server.send("GET", "metrics", null, null);
        assertEquals(200, metrics.statusCode(), metrics.body());
        assertTrue(metrics.body().contains("teamdesk_background_yields"), "the gauge that reads UrgentWork is served");
        List<String> lines = Files.readAllLines(server.logFile()).stream()
                .filter(l -> l.contains("fair share (R47)")).toList();
        assertEquals(1, lines.size(), "UrgentWork says once what it read: " + lines);
        assertTrue(lines.get(0).contains("for at most 40 ms each") && lines.get(0).contains("handed over for 250 ms"),
                "UrgentWork read the WAR's settings: " + lines.get(0));
    }
}
