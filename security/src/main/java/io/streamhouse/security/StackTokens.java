package io.streamhouse.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The development key pair and tokens of one stack, in its data directory: {@code keys/jwt-private.pem} (created on
 * the first {@code up}, never copied elsewhere), {@code keys/jwt-public.pem} (what the apps verify with) and
 * {@code tokens/<role>.jwt} (one token per role, re-issued on every {@code up}). Tools that call ingest or the api
 * read their token from here, or from {@code STREAMHOUSE_TOKEN_<ROLE>} when set.
 */
public final class StackTokens {
    /** How long a development token stays valid; {@code up} issues fresh ones each time. */
    public static final Duration LIFETIME = Duration.ofDays(30);

    public static Path privateKey(Path data) {
        return data.resolve("keys").resolve("jwt-private.pem");
    }

    public static Path publicKey(Path data) {
        return data.resolve("keys").resolve("jwt-public.pem");
    }

    public static Path tokenFile(Path data, String role) {
        return data.resolve("tokens").resolve(role + ".jwt");
    }

    /** The subject of the development token for {@code role}: {@code dev-<role>}. */
    public static String subject(String role) {
        return "dev-" + role;
    }

    /**
     * Creates the key pair if the data directory has none (rotation: delete {@code keys/} and run {@code up} again),
     * then writes a fresh token per role. Returns the tokens by role, in {@link Roles#ALL} order.
     */
    public static Map<String, String> issue(Path data, Instant now) throws IOException {
        Path privatePem = privateKey(data);
        if (!Files.exists(privatePem)) {
            DevTokens.write(DevTokens.generateKeyPair(), privatePem, publicKey(data));
        }
        PrivateKey key = DevTokens.readPrivateKey(privatePem);
        Map<String, String> tokens = new LinkedHashMap<>();
        Files.createDirectories(data.resolve("tokens"));
        for (String role : Roles.ALL) {
            String token = DevTokens.sign(key, subject(role), List.of(role), now, LIFETIME);
            Files.writeString(tokenFile(data, role), token + "\n");
            tokens.put(role, token);
        }
        return tokens;
    }

    /**
     * The token a tool sends as {@code role}: {@code STREAMHOUSE_TOKEN_<ROLE>} (role upper-cased, '-' as '_') if set,
     * else {@code <data>/tokens/<role>.jwt}.
     */
    public static String read(Path data, String role) throws IOException {
        String env = System.getenv("STREAMHOUSE_TOKEN_" + role.toUpperCase(Locale.ROOT).replace('-', '_'));
        if (env != null && !env.isBlank()) {
            return env.trim();
        }
        Path file = tokenFile(data, role);
        try {
            return Files.readString(file).trim();
        } catch (NoSuchFileException e) {
            throw new IOException("no " + role + " token at " + file + ": ./streamhouse up writes one per role"
                    + " (or set STREAMHOUSE_TOKEN_" + role.toUpperCase(Locale.ROOT).replace('-', '_') + ")", e);
        }
    }

    private StackTokens() {
    }
}
