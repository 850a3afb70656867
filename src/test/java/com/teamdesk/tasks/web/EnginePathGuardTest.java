package com.teamdesk.tasks.web;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which raw paths {@link EnginePathGuard} takes away from the HTTP engine's decoder (issue 49). */
class EnginePathGuardTest {

    @Test
    void pathsTheEngineMishandlesAreTakenAway() {
        for (String raw : List.of("/api/v1/" + "a".repeat(120) + "/..", "/api/v1/a/.", "/api/v1/%2e%2e", "/a%00b",
                "/a%ffb", "/a%c0%af", "/a%5cb", "/a%2fb", "/a%zzb", "/a%", "/a%4", "127.0.0.1:443", "", "/a\\b",
                "/console/../api/v1/me", "/a%\u0664\u0661", "/a%\uff14\uff11", "/a/%2E%2e/b")) {
            assertTrue(EnginePathGuard.refused(raw), raw);
        }
        assertTrue(EnginePathGuard.refused(null));
    }

    @Test
    void pathsItRoutesAreLeftAlone() {
        for (String raw : List.of("/", "/health", "/api/v1/me", "/api/v1/teams/7ea40000-0000-4000-8000-000000000001/tasks",
                "/api/v1/k%C3%A9", "/console/app.js", "/api/v1/a.b/c..d", "/api/v1/teams/%7Bid%7D", "*", "/a.b%41", "/%E4%B8%AD/x")) {
            assertFalse(EnginePathGuard.refused(raw), raw);
        }
    }
}
