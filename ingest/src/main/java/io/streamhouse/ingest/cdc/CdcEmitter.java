package io.streamhouse.ingest.cdc;

import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.ArrayList;
import java.util.List;

import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.CUSTOMERS_SINK;
import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.ORDERS_SINK;
import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.SEEN_RETENTION;
import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.SOURCE_PREFIX;
import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.eventId;

/**
 * Forwards each domain event once: its id is derived from the change's position, and the seen-ids store drops a
 * repeat for {@link CdcNormalisationTopology#SEEN_RETENTION} of stream time. Records are stamped with the time the raw
 * change was written, or the wall clock when a timer releases them: never the commit time, which is the database's
 * clock and stays in the envelope (a broker refuses a timestamp its own clock has not reached).
 */
final class CdcEmitter {
    private final ProcessorContext<Object, Object> context;
    private final KeyValueStore<String, Long> seen;
    private long writtenAt;

    CdcEmitter(ProcessorContext<Object, Object> context, KeyValueStore<String, Long> seen) {
        this.context = context;
        this.seen = seen;
    }

    /** The record timestamp of what is emitted from now on. */
    void writtenAt(long timestamp) {
        this.writtenAt = timestamp;
    }

    void customer(ShopChange change, String customerId, String kind, Object body) {
        String eventId = eventId(change, customerId, kind);
        CustomerEvent event = CustomerEvent.newBuilder()
                .setEnvelope(Envelopes.create(eventId, customerId, change.committedAt(), change.capturedAt(),
                        SOURCE_PREFIX + change.table(), EventTypes.versionOf(CustomerEvent.class), "lsn:" + change.lsn()))
                .setCustomerId(customerId)
                .setChange(body)
                .build();
        forwardOnce(eventId, customerId, event, CUSTOMERS_SINK);
    }

    void order(ShopChange change, String orderId, String customerId, String kind, Object body) {
        String eventId = eventId(change, orderId, kind);
        OrderEvent event = OrderEvent.newBuilder()
                .setEnvelope(Envelopes.create(eventId, orderId, change.committedAt(), change.capturedAt(),
                        SOURCE_PREFIX + change.table(), EventTypes.versionOf(OrderEvent.class), "lsn:" + change.lsn()))
                .setOrderId(orderId)
                .setCustomerId(customerId)
                .setChange(body)
                .build();
        forwardOnce(eventId, orderId, event, ORDERS_SINK);
    }

    private void forwardOnce(String eventId, String key, Object event, String sink) {
        if (seen.get(eventId) != null) {
            return; // the same change delivered again: already emitted
        }
        seen.put(eventId, writtenAt); // forgotten by stream time, which is made of write times too
        context.forward(new Record<>(key, event, writtenAt), sink);
    }

    void forgetOldIds(long streamTime) {
        long cutoff = streamTime - SEEN_RETENTION.toMillis();
        List<String> old = new ArrayList<>();
        try (KeyValueIterator<String, Long> it = seen.all()) {
            while (it.hasNext()) {
                KeyValue<String, Long> kv = it.next();
                if (kv.value < cutoff) {
                    old.add(kv.key);
                }
            }
        }
        old.forEach(seen::delete);
    }
}
