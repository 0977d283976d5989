package io.streamhouse.domain.wire;

import org.apache.avro.Schema;

/**
 * What the serializers need from a schema registry. Implementations must be thread-safe: one client is shared by
 * every serializer of a producer or a Kafka Streams application.
 *
 * <p>Failures surface as {@link SchemaRegistryException} (the registry answered with an error, e.g. 40403 schema
 * not found, 409 incompatible) or as its parent {@link org.apache.kafka.common.errors.SerializationException} (the
 * registry could not be reached).
 */
public interface SchemaRegistryClient extends AutoCloseable {

    /**
     * Registers {@code schema} under {@code subject} (idempotent: registering the same schema again returns the same
     * id) and returns its global id. The registry checks compatibility with the subject's earlier versions.
     */
    int register(String subject, Schema schema);

    /** Id of a schema already registered under {@code subject}, without registering it (POST /subjects/{subject}). */
    int getId(String subject, Schema schema);

    /** The schema with this global id; ids are immutable, so the answer can be cached forever. */
    Schema getById(int id);

    /** The newest live version of {@code subject}. Not cached: it changes whenever someone registers. */
    RegisteredSchema getLatest(String subject);

    /** Whether registering {@code schema} under {@code subject} would pass the subject's compatibility level. */
    boolean testCompatibility(String subject, Schema schema);

    @Override
    void close();
}
