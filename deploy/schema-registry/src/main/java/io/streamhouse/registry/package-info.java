/**
 * A schema registry that speaks the part of Confluent Schema Registry's REST API that serializers and tools use, so
 * that Confluent's own clients (Java, JavaScript, Go, Python) work against it unchanged.
 *
 * <p>Shape: {@link io.streamhouse.registry.SchemaRegistryServer} (JDK HTTP server) → {@link
 * io.streamhouse.registry.RegistryApi} (routes, JSON, error codes) → {@link io.streamhouse.registry.Registry} (rules:
 * ids, versions, compatibility, deletes) → {@link io.streamhouse.registry.SchemaStore} (a log of
 * {@link io.streamhouse.registry.StoreRecord}s: a compacted Kafka topic, or memory in tests). The registry's memory is
 * always a fold of the log ({@link io.streamhouse.registry.RegistryState#apply}), the same fold at start-up and after
 * each write, so a restart cannot see anything else than what was answered.
 *
 * <p>Single writer: running two instances on one topic needs leader election, which Confluent Schema Registry,
 * Karapace and Apicurio do; in production point the clients at one of those by configuration.
 */
package io.streamhouse.registry;
