package io.streamhouse.detection.cep;

import java.util.Arrays;
import java.util.Objects;

/**
 * A record the job could not read, byte for byte, with where it came from and why: it goes to {@code <topic>.dlq}
 * with the same headers as the Kafka Streams dead letters ({@code DeadLetterHeaders}). A Flink POJO (public fields,
 * no-argument constructor) so that it travels without Kryo.
 */
public class DeadLetter {
    public String sourceTopic;
    public int sourcePartition;
    public long sourceOffset;
    public byte[] key;
    public byte[] value;
    public String reason;
    /** Class name of the exception, or null when the record was refused without one. */
    public String exception;
    /** The wire format's schema id when the first five bytes are readable, else null. */
    public Integer schemaId;
    public String processor;

    public DeadLetter() {
    }

    public DeadLetter(String sourceTopic, int sourcePartition, long sourceOffset, byte[] key, byte[] value, String reason,
                      String exception, Integer schemaId, String processor) {
        this.sourceTopic = sourceTopic;
        this.sourcePartition = sourcePartition;
        this.sourceOffset = sourceOffset;
        this.key = key;
        this.value = value;
        this.reason = reason;
        this.exception = exception;
        this.schemaId = schemaId;
        this.processor = processor;
    }

    /**
     * A match that no alert could be built for (the pattern threw while building its findings, or the alert could not
     * be built): without the raw record at hand (patterns see facts), the key is the subject and the value the
     * event ids involved; partition and offset are -1. Logged to {@code log} with the reason.
     */
    static DeadLetter unalertable(SubjectPattern<?> pattern, String anchorTopic, String processor, String key,
                                  java.util.List<io.streamhouse.domain.state.CepFact> facts, Finding finding,
                                  RuntimeException e, org.slf4j.Logger log) {
        java.util.List<String> ids = finding != null ? finding.eventIds()
                : facts.stream().map(io.streamhouse.domain.state.CepFact::getEventId).toList();
        String reason = pattern.kind().ruleId() + ": no alert could be built for subject " + key
                + (finding != null ? " (anchor " + finding.anchorEventId() + ")" : "") + ": " + e.getMessage();
        log.warn("{}; events {} to the dead letters", reason, ids, e);
        return new DeadLetter(anchorTopic, -1, -1L, key.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                String.join(",", ids).getBytes(java.nio.charset.StandardCharsets.UTF_8), reason, e.getClass().getName(),
                null, processor);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeadLetter d && sourcePartition == d.sourcePartition && sourceOffset == d.sourceOffset
                && Objects.equals(sourceTopic, d.sourceTopic) && Arrays.equals(key, d.key) && Arrays.equals(value, d.value)
                && Objects.equals(reason, d.reason) && Objects.equals(exception, d.exception)
                && Objects.equals(schemaId, d.schemaId) && Objects.equals(processor, d.processor);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sourceTopic, sourcePartition, sourceOffset, reason);
    }

    @Override
    public String toString() {
        return "DeadLetter{" + sourceTopic + "-" + sourcePartition + "@" + sourceOffset + ": " + reason + "}";
    }
}
