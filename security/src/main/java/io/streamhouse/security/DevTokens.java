package io.streamhouse.security;

import io.streamhouse.security.http.ProblemBodies;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Collection;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Development key pairs and RS256 tokens, with the JDK only: what the launcher uses to sign one token per role, and
 * the tests to sign theirs. The apps only ever see the public key; the private key stays in the stack's data
 * directory (mode 600). A real deployment takes its tokens from an identity provider instead (docs/security.md).
 */
public final class DevTokens {
    /** The issuer of development tokens; the apps accept only this issuer unless configured otherwise. */
    public static final String ISSUER = "streamhouse-dev";
    /** The audience every token names: Streamhouse's ingest and api. */
    public static final String AUDIENCE = "streamhouse";

    private static final Base64.Encoder URL = Base64.getUrlEncoder().withoutPadding();

    public static KeyPair generateKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("RSA is not available in this JVM", e);
        }
    }

    /** Writes the pair as PEM: the private key readable by its owner only, the public key for the apps. */
    public static void write(KeyPair pair, Path privatePem, Path publicPem) throws IOException {
        Files.createDirectories(privatePem.toAbsolutePath().getParent());
        Files.createDirectories(publicPem.toAbsolutePath().getParent());
        Path tmp = privatePem.resolveSibling(privatePem.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        try {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException notPosix) {
            Files.createFile(tmp);
        }
        Files.writeString(tmp, pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
        Files.move(tmp, privatePem, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        Files.writeString(publicPem, pem("PUBLIC KEY", pair.getPublic().getEncoded()));
    }

    public static PrivateKey readPrivateKey(Path pem) throws IOException {
        String body = Files.readString(pem).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        try {
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IOException(pem + " does not hold an RSA private key in PKCS#8 PEM", e);
        }
    }

    /**
     * A signed token for {@code subject} with {@code roles} as its {@code groups} claim, valid from {@code issuedAt}
     * for {@code lifetime}.
     */
    public static String sign(PrivateKey key, String subject, Collection<String> roles, Instant issuedAt, Duration lifetime) {
        return sign(key, ISSUER, subject, roles, issuedAt, lifetime);
    }

    public static String sign(PrivateKey key, String issuer, String subject, Collection<String> roles, Instant issuedAt,
                              Duration lifetime) {
        String header = "{\"alg\":\"RS256\",\"typ\":\"JWT\"}";
        String claims = "{\"iss\":" + ProblemBodies.quote(issuer) + ",\"sub\":" + ProblemBodies.quote(subject) + ",\"upn\":" + ProblemBodies.quote(subject)
                + ",\"aud\":" + ProblemBodies.quote(AUDIENCE)
                + ",\"groups\":[" + roles.stream().map(ProblemBodies::quote).collect(Collectors.joining(",")) + "]"
                + ",\"iat\":" + issuedAt.getEpochSecond() + ",\"exp\":" + issuedAt.plus(lifetime).getEpochSecond()
                + ",\"jti\":" + ProblemBodies.quote(UUID.randomUUID().toString()) + "}";
        String signingInput = URL.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
                + URL.encodeToString(claims.getBytes(StandardCharsets.UTF_8));
        try {
            Signature rs256 = Signature.getInstance("SHA256withRSA");
            rs256.initSign(key);
            rs256.update(signingInput.getBytes(StandardCharsets.US_ASCII));
            return signingInput + "." + URL.encodeToString(rs256.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a token", e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private DevTokens() {
    }
}
