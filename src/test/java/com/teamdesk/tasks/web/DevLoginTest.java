package com.teamdesk.tasks.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.common.NotFoundException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dev sign-in turns on only with the flag AND the MP-JWT key being the public half of its private key. */
class DevLoginTest {
    private static final Path DEV_PRIVATE = Path.of("dev/jwt/private.pem").toAbsolutePath();
    private static final Path DEV_PUBLIC = Path.of("dev/jwt/public.pem").toAbsolutePath();

    private static DevLogin devLogin(boolean enabled, Path privateKey, String publicKeyLocation) {
        DevLogin d = new DevLogin();
        d.requested = enabled;
        d.privateKeyFile = Optional.ofNullable(privateKey).map(Path::toString);
        d.publicKeyLocation = Optional.ofNullable(publicKeyLocation);
        d.publicKeyText = Optional.empty();
        return d;
    }

    @Test
    void offByDefaultAndThenItsEndpointsDoNotExist() {
        DevLogin d = devLogin(false, DEV_PRIVATE, "file:" + DEV_PUBLIC);
        assertFalse(d.enabled());
        NotFoundException e = assertThrows(NotFoundException.class, d::users);
        assertEquals(404, e.status());
    }

    @Test
    void onWithTheDevKeyPair() {
        assertTrue(devLogin(true, DEV_PRIVATE, "file:" + DEV_PUBLIC).enabled());
        assertTrue(devLogin(true, DEV_PRIVATE, DEV_PUBLIC.toString()).enabled(), "a plain path works too");
    }

    @Test
    void refusedWithANonDevPublicKey(@TempDir Path dir) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        Path other = dir.resolve("prod-public.pem");
        Files.writeString(other, "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(g.generateKeyPair().getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n");
        assertFalse(devLogin(true, DEV_PRIVATE, "file:" + other).enabled(), "a production key: never together");
        assertFalse(devLogin(true, null, "file:" + DEV_PUBLIC).enabled(), "no private key configured");
        assertFalse(devLogin(true, DEV_PRIVATE, "https://keys.example/jwks").enabled(), "a remote key cannot be compared");
    }
}
