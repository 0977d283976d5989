package io.streamhouse.detection.decision;

import io.streamhouse.domain.decision.FraudAlerts;
import io.streamhouse.domain.state.FraudAlertHistory;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Keeps the decider's fraud alerts: a global store's processor that holds each subject's recent records of
 * {@code alerts.fraud} (the topic's key is the subject) with their offsets, as read ({@link FraudAlerts#hold}), so that
 * a decision can say how far it had read them and a rebuild can decide with exactly those. Streams runs it for each
 * record as it arrives and again for every record when it restores the store (Kafka ≥ 3.8, KAFKA-7663); an offset held
 * already is not held twice. The records are decoded when a decision reads them (an unreadable one is skipped there,
 * with a warning).
 */
final class FraudAlertUpdater implements Processor<String, byte[], Void, Void> {
    private final Map<TopicPartition, Long> ends;
    private ProcessorContext<Void, Void> context;
    private KeyValueStore<String, FraudAlertHistory> alerts;

    /** @param ends per input partition, the first offset not to apply (a rebuild's cut); empty: no end */
    FraudAlertUpdater(Map<TopicPartition, Long> ends) {
        this.ends = ends;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        this.alerts = context.getStateStore(DecisionTopology.FRAUD_ALERTS_GLOBAL);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() == null || record.value() == null || context.recordMetadata().isEmpty()
                || CustomerProfileUpdater.pastEnd(ends, context.recordMetadata())) {
            return;
        }
        RecordMetadata at = context.recordMetadata().get();
        FraudAlertHistory before = alerts.get(record.key());
        FraudAlertHistory after = FraudAlerts.hold(before, record.key(), at.offset(), ByteBuffer.wrap(record.value()));
        if (after != before) {
            alerts.put(record.key(), after);
        }
    }
}
