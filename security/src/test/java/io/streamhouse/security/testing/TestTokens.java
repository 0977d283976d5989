package io.streamhouse.security.testing;

import io.streamhouse.security.DevTokens;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Tokens for the tests, signed with the test key pair ({@code streamhouse-test-jwt-*.pem} on the test classpath; the
 * apps' test profile verifies against its public half). A committed key pair for tests only: it signs nothing real.
 */
public final class TestTokens {
    public static final String PUBLIC_KEY_RESOURCE = "streamhouse-test-jwt-public.pem";
    private static final PrivateKey KEY = load("streamhouse-test-jwt-private.pem");

    /** A token for {@code test-<role>} with that one role. */
    public static String forRole(String role) {
        return of("test-" + role, role);
    }

    public static String of(String subject, String... roles) {
        return DevTokens.sign(KEY, subject, List.of(roles), Instant.now(), Duration.ofHours(1));
    }

    /** Expired an hour ago. */
    public static String expired(String role) {
        return DevTokens.sign(KEY, "test-" + role, List.of(role), Instant.now().minus(Duration.ofHours(2)), Duration.ofHours(1));
    }

    /** Well formed, but signed by a key the apps do not trust. */
    public static String forged(String role) {
        return DevTokens.sign(DevTokens.generateKeyPair().getPrivate(), "test-" + role, List.of(role), Instant.now(), Duration.ofHours(1));
    }

    /** The value of an Authorization header for {@code token}. */
    public static String bearer(String token) {
        return "Bearer " + token;
    }

    private static PrivateKey load(String resource) {
        try (InputStream in = TestTokens.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the test classpath");
            }
            Path tmp = Files.createTempFile("test-jwt", ".pem");
            Files.writeString(tmp, new String(in.readAllBytes(), StandardCharsets.US_ASCII));
            try {
                return DevTokens.readPrivateKey(tmp);
            } finally {
                Files.delete(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private TestTokens() {
    }
}
