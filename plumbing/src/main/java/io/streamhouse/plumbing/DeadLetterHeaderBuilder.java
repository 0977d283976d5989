package io.streamhouse.plumbing;

import io.streamhouse.domain.topic.DeadLetterHeaders;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The headers that say why a record is a dead letter ({@link DeadLetterHeaders}' names), built the same way by every
 * writer of dead letters: the Kafka Streams topologies, the CEP job's dead-letter sink and ingest's MQTT bridge.
 * Headers come out in the order they were given; giving one again replaces it. Masking personal data (card numbers)
 * is the caller's: it passes the text as it may be written.
 */
public final class DeadLetterHeaderBuilder {
    private final Map<String, String> values = new LinkedHashMap<>();

    private DeadLetterHeaderBuilder(String reason) {
        values.put(DeadLetterHeaders.REASON, Objects.requireNonNull(reason, "reason"));
    }

    /** A dead letter refused for {@code reason}, one line for a person. */
    public static DeadLetterHeaderBuilder because(String reason) {
        return new DeadLetterHeaderBuilder(reason);
    }

    /** The class of the exception that refused it; nothing when {@code e} is null (refused without one). */
    public DeadLetterHeaderBuilder exception(Throwable e) {
        return e == null ? this : exception(e.getClass().getName());
    }

    /** The class name of the exception that refused it; nothing when null. */
    public DeadLetterHeaderBuilder exception(String className) {
        return className == null ? this : put(DeadLetterHeaders.EXCEPTION, className);
    }

    /** Where the record was read. */
    public DeadLetterHeaderBuilder source(String topic, int partition, long offset) {
        put(DeadLetterHeaders.SOURCE_TOPIC, topic);
        put(DeadLetterHeaders.SOURCE_PARTITION, Integer.toString(partition));
        return put(DeadLetterHeaders.SOURCE_OFFSET, Long.toString(offset));
    }

    /** The processor (or store, or job step) that refused it. */
    public DeadLetterHeaderBuilder processor(String processor) {
        return put(DeadLetterHeaders.PROCESSOR, processor);
    }

    /** The schema id of {@code raw} when it is in the registry's wire format (magic byte 0, then the id); else nothing. */
    public DeadLetterHeaderBuilder schemaIdOf(byte[] raw) {
        return raw != null && raw.length >= 5 && raw[0] == 0 ? schemaId(ByteBuffer.wrap(raw, 1, 4).getInt()) : this;
    }

    /** The schema id the record was written with; nothing when null. */
    public DeadLetterHeaderBuilder schemaId(Integer id) {
        return id == null ? this : put(DeadLetterHeaders.SCHEMA_ID, Integer.toString(id));
    }

    /** For a payload that did not come from Kafka: the MQTT topic it was published on. */
    public DeadLetterHeaderBuilder mqttTopic(String mqttTopic) {
        return put(DeadLetterHeaders.MQTT_TOPIC, mqttTopic);
    }

    /** The headers as names and text, in the order given. */
    public Map<String, String> asMap() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** Only these headers. */
    public Headers toHeaders() {
        return onto(new RecordHeaders());
    }

    /**
     * A copy of the record's own headers with these written over them: a header of the same name in {@code original}
     * is replaced, the others are kept. {@code original} is not changed.
     */
    public Headers onto(Headers original) {
        Headers headers = new RecordHeaders(original.toArray());
        values.forEach((name, value) -> {
            headers.remove(name);
            headers.add(name, value.getBytes(StandardCharsets.UTF_8));
        });
        return headers;
    }

    private DeadLetterHeaderBuilder put(String name, String value) {
        values.remove(name);
        values.put(name, Objects.requireNonNull(value, name));
        return this;
    }
}
