package io.streamhouse.detection.cep;

/**
 * An event that arrived behind the watermark, already in the wire format for its {@code <topic>.late} topic, with
 * why it is late. The event itself still goes on to the patterns, whose reconciliation takes it into account (see
 * {@link LateReconciler}); this record is the audit trail. A Flink POJO, no Kryo.
 */
public class LateRecord {
    public String sourceTopic;
    public String lateTopic;
    public String key;
    /** The event in the Confluent wire format (registered under {@code <lateTopic>-value}). */
    public byte[] value;
    public String eventId;
    public long occurredAt;
    public long watermark;
    public String reason;

    public LateRecord() {
    }

    public LateRecord(String sourceTopic, String lateTopic, String key, byte[] value, String eventId, long occurredAt,
                      long watermark, String reason) {
        this.sourceTopic = sourceTopic;
        this.lateTopic = lateTopic;
        this.key = key;
        this.value = value;
        this.eventId = eventId;
        this.occurredAt = occurredAt;
        this.watermark = watermark;
        this.reason = reason;
    }

    public long latenessMillis() {
        return watermark - occurredAt;
    }

    @Override
    public String toString() {
        return "LateRecord{" + sourceTopic + " " + eventId + " at " + occurredAt + ", watermark " + watermark + "}";
    }
}
