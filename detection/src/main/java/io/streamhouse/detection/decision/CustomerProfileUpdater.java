package io.streamhouse.detection.decision;

import io.streamhouse.plumbing.DeadLetters;
import io.streamhouse.domain.decision.CustomerProfiles;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.state.CustomerProfile;
import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.Map;
import java.util.Optional;

/**
 * Keeps the decider's customer profiles: a global store's processor that folds every customer change event of
 * {@code shop.customers} into its customer's profile. Streams runs it for each record as it arrives, and (Kafka ≥ 3.8,
 * KAFKA-7663) again for every record when it restores the store, and catches every global store up to its topic's
 * end before any stream task runs: so a rebuild decides every request against every change before its cut, and two
 * rebuilds of one log see the same profiles. A record that cannot be read, whose key is not its customer id, or whose
 * event time is too far ahead of its write ({@link DeadLetters#tooFarAhead}) is left out; the serving application,
 * which reads the same topic, dead-letters it with the reason.
 */
final class CustomerProfileUpdater implements Processor<String, byte[], Void, Void> {
    private final Deserializer<CustomerEvent> deserializer;
    private final Map<TopicPartition, Long> ends;
    private ProcessorContext<Void, Void> context;
    private KeyValueStore<String, CustomerProfile> profiles;

    /** @param ends per input partition, the first offset not to apply (a rebuild's cut); empty: no end */
    CustomerProfileUpdater(Deserializer<CustomerEvent> deserializer, Map<TopicPartition, Long> ends) {
        this.deserializer = deserializer;
        this.ends = ends;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        this.profiles = context.getStateStore(DecisionTopology.CUSTOMER_PROFILES_GLOBAL);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.value() == null || pastEnd(ends, context.recordMetadata())) {
            return;
        }
        CustomerEvent event;
        try {
            event = deserializer.deserialize(Topics.CUSTOMERS.name(), record.value());
        } catch (RuntimeException unreadable) {
            return;
        }
        String customerId = event.getCustomerId();
        if (customerId == null || !customerId.equals(record.key())) {
            return;
        }
        if (DeadLetters.tooFarAhead(event, record.timestamp()).isPresent()) {
            return; // as serving does (it dead-letters it): a profile is not moved past every change written after it
        }
        CustomerProfile before = profiles.get(customerId);
        CustomerProfile after = CustomerProfiles.apply(before, event);
        if (after != before) {
            profiles.put(customerId, after);
        }
    }

    /** Whether the record is at or past its partition's end (a global store applies nothing there: a rebuild's cut). */
    static boolean pastEnd(Map<TopicPartition, Long> ends, Optional<RecordMetadata> metadata) {
        if (ends.isEmpty() || metadata.isEmpty()) {
            return false;
        }
        Long end = ends.get(new TopicPartition(metadata.get().topic(), metadata.get().partition()));
        return end != null && metadata.get().offset() >= end;
    }
}
