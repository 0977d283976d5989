package io.streamhouse.security.http;

import io.smallrye.config.WithDefault;

import java.util.List;
import java.util.Optional;

/**
 * {@code streamhouse.security.*}: a group each app's {@code @ConfigMapping(prefix = "streamhouse")} declares, so that
 * its unknown-property check knows these keys (the beans here read them with {@code @ConfigProperty}).
 */
public interface AccessConfig {
    RateLimit rateLimit();

    /** Where the protected resource metadata is served (the api: for MCP clients); absent on ingest. */
    Optional<String> resourceMetadataPath();

    /** The issuer(s) of a real identity provider, named in the protected resource metadata. */
    Optional<List<String>> authorizationServers();

    interface RateLimit {
        @WithDefault("true")
        boolean enabled();

        @WithDefault("1000")
        double perSecond();

        @WithDefault("2000")
        int burst();

        /** {@code subject:perSecond:burst,...}: callers with limits of their own. */
        Optional<String> overrides();
    }
}
