package io.streamhouse.ingest.cdc;

import io.streamhouse.domain.event.Address;
import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerDeleted;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerRegistered;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.ArrayList;
import java.util.List;

import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.RAW_TOPIC;
import static io.streamhouse.ingest.cdc.CdcNormalisationTopology.REGISTRATION_GRACE;

/**
 * Rows of {@code shop.customers} and {@code shop.addresses} as customer events. A customer's insert waits in the
 * pending store for the address of its own transaction, which becomes part of {@code CustomerRegistered}; the next
 * record of another transaction, or {@link CdcNormalisationTopology#REGISTRATION_GRACE} of wall-clock time, releases it
 * without one.
 */
final class CustomerChanges {
    private static final String PREFIX = "customer:";

    private final ShopChanges changes;
    private final ProcessorContext<Object, Object> context;
    private final KeyValueStore<String, byte[]> pending;
    private final CdcEmitter emitter;
    /** Wall-clock time a registration became pending; memory only (after a restart: released at once). */
    private final java.util.Map<String, Long> pendingSince = new java.util.HashMap<>();

    CustomerChanges(ShopChanges changes, ProcessorContext<Object, Object> context, KeyValueStore<String, byte[]> pending,
                    CdcEmitter emitter) {
        this.changes = changes;
        this.context = context;
        this.pending = pending;
        this.emitter = emitter;
    }

    void change(ShopChange change, byte[] raw) {
        String id = ShopChanges.requiredString(change.row(), "id");
        if (change.isInsert()) {
            ShopChanges.requiredString(change.after(), "email");
            ShopChanges.requiredInstant(change.after(), "registered_at");
            // Wait for the address of the same transaction (or the next transaction, or the grace period).
            pending.put(PREFIX + id, PendingRows.encode(List.of(raw)));
            pendingSince.put(id, context.currentSystemTimeMs());
        } else if (change.isUpdate()) {
            String previous = change.before() == null ? null : ShopChanges.string(change.before(), "email");
            String current = ShopChanges.requiredString(change.after(), "email");
            if (!current.equals(previous)) {
                emitter.customer(change, id, "email-changed",
                        CustomerEmailChanged.newBuilder().setPrevious(previous).setCurrent(current).build());
            }
        } else {
            releaseRegistration(id, null);
            emitter.customer(change, id, "deleted", CustomerDeleted.newBuilder().setReason(null).build());
        }
    }

    void addressChange(ShopChange change) {
        String customerId = ShopChanges.requiredString(change.row(), "customer_id");
        if (change.isDelete()) {
            return;
        }
        Address current = address(change.after());
        byte[] pendingCustomer = pending.get(PREFIX + customerId);
        if (change.isInsert() && pendingCustomer != null) {
            ShopChange registration = changes.read(RAW_TOPIC, PendingRows.decode(pendingCustomer).get(0));
            if (registration.txId() == change.txId()) {
                releaseRegistration(customerId, current);
                return;
            }
        }
        Address previous = change.isUpdate() && change.before() != null && change.before().get("line1") != null
                ? address(change.before()) : null;
        if (current.equals(previous)) {
            return;
        }
        emitter.customer(change, customerId, "address-changed",
                CustomerAddressChanged.newBuilder().setPrevious(previous).setCurrent(current).build());
    }

    /** Wall-clock release of registrations no record completed: an idle database. */
    void releaseIdle(long now) {
        emitter.writtenAt(now);
        List<String> ids = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = pending.prefixScan(PREFIX, org.apache.kafka.common.serialization.Serdes.String().serializer())) {
            while (it.hasNext()) {
                String id = it.next().key.substring(PREFIX.length());
                // Not in memory: pending from before a restart, released now.
                long since = pendingSince.getOrDefault(id, Long.MIN_VALUE);
                if (since == Long.MIN_VALUE || now - since >= REGISTRATION_GRACE.toMillis()) {
                    ids.add(id);
                }
            }
        }
        for (String id : ids) {
            releaseRegistration(id, null);
        }
    }

    /** Emits the pending registrations of transactions other than {@code currentTxId}. */
    void releaseOtherTransactions(long currentTxId) {
        List<String> ids = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = pending.prefixScan(PREFIX, org.apache.kafka.common.serialization.Serdes.String().serializer())) {
            while (it.hasNext()) {
                KeyValue<String, byte[]> kv = it.next();
                ShopChange registration = changes.read(RAW_TOPIC, PendingRows.decode(kv.value).get(0));
                if (registration.txId() != currentTxId) {
                    ids.add(kv.key.substring(PREFIX.length()));
                }
            }
        }
        for (String id : ids) {
            releaseRegistration(id, null);
        }
    }

    private void releaseRegistration(String customerId, Address address) {
        byte[] stored = pending.get(PREFIX + customerId);
        if (stored == null) {
            return;
        }
        pending.delete(PREFIX + customerId);
        pendingSince.remove(customerId);
        ShopChange change = changes.read(RAW_TOPIC, PendingRows.decode(stored).get(0));
        GenericRecord row = change.after();
        emitter.customer(change, customerId, "registered", CustomerRegistered.newBuilder()
                .setEmail(ShopChanges.requiredString(row, "email"))
                .setFullName(ShopChanges.requiredString(row, "full_name"))
                .setAddress(address)
                .setRegisteredAt(ShopChanges.requiredInstant(row, "registered_at"))
                .build());
    }

    private static Address address(GenericRecord row) {
        return Address.newBuilder()
                .setLine1(ShopChanges.requiredString(row, "line1"))
                .setLine2(ShopChanges.string(row, "line2"))
                .setCity(ShopChanges.requiredString(row, "city"))
                .setPostalCode(ShopChanges.requiredString(row, "postal_code"))
                .setCountry(ShopChanges.requiredString(row, "country").trim())
                .setLocation(null)
                .build();
    }
}
