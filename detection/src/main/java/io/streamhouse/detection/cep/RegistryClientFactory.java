package io.streamhouse.detection.cep;

import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.SchemaRegistryClient;

import java.io.Serializable;

/** How an operator reaches the schema registry once it runs: shipped to the task managers, called in {@code open}. */
@FunctionalInterface
public interface RegistryClientFactory extends Serializable {

    SchemaRegistryClient create();

    /** The registry (or registries, comma-separated) at these URLs, with the domain's caching client. */
    static RegistryClientFactory url(String urls) {
        return () -> new CachingSchemaRegistryClient(urls);
    }
}
