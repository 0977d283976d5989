/**
 * The registry wire format: how an Avro record becomes bytes on a topic and back, and the schema registry client
 * that hands out the schema ids.
 *
 * <p>Bytes follow Confluent's wire format (magic byte {@code 0}, 4-byte big-endian schema id, Avro binary body) so
 * that any Confluent-compatible consumer, in any language, can read our topics, and so that our consumers can read
 * theirs. The registry behind {@link io.streamhouse.domain.wire.CachingSchemaRegistryClient} may be our own
 * {@code streamhouse-schema-registry}, Confluent Schema Registry, Karapace or Apicurio's Confluent-compatible API.
 *
 * <p>No framework lives here: only Avro, kafka-clients (for the {@code Serializer}/{@code Deserializer}/{@code Serde}
 * interfaces and {@code SerializationException}), Jackson for the registry's JSON and the JDK's HTTP client.
 */
package io.streamhouse.domain.wire;
