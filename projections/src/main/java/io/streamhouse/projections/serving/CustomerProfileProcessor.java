package io.streamhouse.projections.serving;

import io.streamhouse.domain.decision.CustomerProfiles;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.state.CustomerProfile;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Folds each customer's change events into its profile (store keyed by customer id) and emits the new profile, for the
 * compacted {@code shop.customers.profiles} topic (the product; the decision topology keeps its own profiles in a
 * global store read from {@code shop.customers}).
 */
public final class CustomerProfileProcessor implements FixedKeyProcessor<String, CustomerEvent, CustomerProfile> {
    private final String storeName;
    private FixedKeyProcessorContext<String, CustomerProfile> context;
    private KeyValueStore<String, CustomerProfile> profiles;

    public CustomerProfileProcessor(String storeName) {
        this.storeName = storeName;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, CustomerProfile> context) {
        this.context = context;
        this.profiles = context.getStateStore(storeName);
    }

    @Override
    public void process(FixedKeyRecord<String, CustomerEvent> record) {
        CustomerProfile before = profiles.get(record.key());
        CustomerProfile after = CustomerProfiles.apply(before, record.value());
        if (after != before) {
            profiles.put(record.key(), after);
            context.forward(record.withValue(after));
        }
    }
}
