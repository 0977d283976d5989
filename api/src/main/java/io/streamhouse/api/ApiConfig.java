package io.streamhouse.api;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;

/** What the api needs to know about its surroundings; set by properties or STREAMHOUSE_* environment variables. */
@ConfigMapping(prefix = "streamhouse")
public interface ApiConfig {
    Kafka kafka();

    @WithName("schema-registry")
    Registry schemaRegistry();

    interface Kafka {
        @WithName("bootstrap-servers")
        String bootstrapServers();
    }

    interface Registry {
        String url();
    }
}
