package io.streamhouse.security.http;

import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.JsonWebToken;

import javax.crypto.SecretKey;
import java.security.PrivateKey;
import java.security.PublicKey;

/**
 * The JWT parser Quarkus' bearer-token authentication uses ({@code MpJwtValidator} calls {@link #parse(String)} for
 * every request), with the verified tokens remembered ({@link VerifiedTokens}) so that a caller's token is verified
 * once per lifetime instead of once per request. Everything else is smallrye-jwt's own parser. Off with
 * {@code streamhouse.security.token-cache.enabled=false}; at most {@code streamhouse.security.token-cache.max-entries}
 * tokens (default 10,000). What this changes for security (docs/security.md, "Verified tokens are remembered"): a
 * token stays accepted until its expiry even if the verification key is replaced in the meantime, on an instance that
 * verified it before.
 */
@Alternative
@Priority(1)
@ApplicationScoped
public class CachingJwtParser implements JWTParser {
    private final DefaultJWTParser parser;
    private final JWTAuthContextInfo context;
    private final VerifiedTokens<JsonWebToken> verified;
    private final boolean enabled;

    public CachingJwtParser(DefaultJWTParser parser, JWTAuthContextInfo context,
                            @ConfigProperty(name = "streamhouse.security.token-cache.enabled", defaultValue = "true") boolean enabled,
                            @ConfigProperty(name = "streamhouse.security.token-cache.max-entries", defaultValue = "10000") int maxEntries) {
        this.parser = parser;
        this.context = context;
        this.enabled = enabled;
        this.verified = new VerifiedTokens<>(maxEntries, () -> System.currentTimeMillis() / 1000);
    }

    @Override
    public JsonWebToken parse(String token) throws ParseException {
        if (!enabled) {
            return parser.parse(token);
        }
        JsonWebToken known = verified.get(token);
        if (known != null) {
            return known;
        }
        JsonWebToken jwt = parser.parse(token);
        verified.put(token, jwt, VerifiedTokens.deadline(jwt.getExpirationTime(), jwt.getIssuedAtTime(), context.getTokenAge()));
        return jwt;
    }

    /** Whether {@code token} is remembered as verified now (for tests and diagnostics). */
    public boolean remembers(String token) {
        return verified.get(token) != null;
    }

    @Override
    public JsonWebToken parse(String token, JWTAuthContextInfo context) throws ParseException {
        return parser.parse(token, context);
    }

    @Override
    public JsonWebToken verify(String token, PublicKey key) throws ParseException {
        return parser.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, SecretKey key) throws ParseException {
        return parser.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, String secret) throws ParseException {
        return parser.verify(token, secret);
    }

    @Override
    public JsonWebToken decrypt(String token, PrivateKey key) throws ParseException {
        return parser.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, SecretKey key) throws ParseException {
        return parser.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, String secret) throws ParseException {
        return parser.decrypt(token, secret);
    }

    @Override
    public JsonWebToken parseOnly(String token) throws ParseException {
        return parser.parseOnly(token);
    }
}
