package io.streamhouse.domain.topic;

/** Header names on a dead-letter record: where it came from and why it could not be used. */
public final class DeadLetterHeaders {
    public static final String REASON = "streamhouse.dlq.reason";
    public static final String EXCEPTION = "streamhouse.dlq.exception";
    public static final String SOURCE_TOPIC = "streamhouse.dlq.source.topic";
    public static final String SOURCE_PARTITION = "streamhouse.dlq.source.partition";
    public static final String SOURCE_OFFSET = "streamhouse.dlq.source.offset";
    public static final String SCHEMA_ID = "streamhouse.dlq.schema.id";
    public static final String PROCESSOR = "streamhouse.dlq.processor";
    /** For records that did not come from Kafka: the MQTT topic the payload was published on. */
    public static final String MQTT_TOPIC = "streamhouse.dlq.mqtt.topic";

    private DeadLetterHeaders() {
    }
}
