package io.streamhouse.ingest;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.time.Duration;

/** Everything ingest needs to know about its surroundings; set by properties or STREAMHOUSE_* environment variables. */
@ConfigMapping(prefix = "streamhouse")
public interface IngestConfig {
    Kafka kafka();

    @WithName("schema-registry")
    Registry schemaRegistry();

    Tokenization tokenization();

    /** How long a request waits for the broker's acknowledgement before it is refused with 503. */
    @WithDefault("10s")
    Duration publishTimeout();

    /** Most events accepted in one batch request. */
    @WithDefault("500")
    int maxBatch();

    interface Kafka {
        @WithName("bootstrap-servers")
        String bootstrapServers();
    }

    interface Registry {
        String url();
    }

    interface Tokenization {
        /** HMAC key for card tokens; at least 16 characters. */
        String key();
    }
}
