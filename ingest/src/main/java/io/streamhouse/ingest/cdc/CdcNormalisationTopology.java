package io.streamhouse.ingest.cdc;

import io.streamhouse.domain.pii.CardNumbers;
import io.streamhouse.domain.event.Address;
import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerDeleted;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.OrderCancelled;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderLine;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.OrderStatus;
import io.streamhouse.domain.event.OrderStatusChanged;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTimes;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.events.Monies;
import io.streamhouse.plumbing.DeadLetterHeaderBuilder;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.SchemaRegistryClient;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Change data capture normalisation: raw Debezium change envelopes of the shop tables ({@code shop.cdc.changes})
 * become domain events — {@link CustomerEvent} on {@code shop.customers}, {@link OrderEvent} on {@code shop.orders}.
 *
 * <p>How rows become events:
 * <ul>
 *   <li>customers: insert → {@code CustomerRegistered}; an update of {@code email} → {@code CustomerEmailChanged}
 *       (previous from the old row: REPLICA IDENTITY FULL); delete → {@code CustomerDeleted}.</li>
 *   <li>addresses (one current address per customer): the address inserted in the same transaction as its customer
 *       is part of the registration ({@code CustomerRegistered.address}); any other insert or update →
 *       {@code CustomerAddressChanged} with the previous address (null for a customer's first address outside
 *       registration). An address delete follows the customer's delete (cascade) or is not a domain change: ignored.</li>
 *   <li>orders: an order is written with its lines in one transaction and says how many lines it has
 *       ({@code line_count}); the insert waits in the pending store until that many lines have arrived, then
 *       becomes one {@code OrderPlaced} with lines and total. An update of {@code status} →
 *       {@code OrderStatusChanged}, or {@code OrderCancelled} (with {@code cancel_reason}) when it becomes CANCELLED;
 *       a delete → {@code OrderCancelled} ("deleted in the shop database"). Both carry the previous status (old row:
 *       REPLICA IDENTITY FULL) and the order's total.</li>
 *   <li>order_lines after placement, payment_methods and the heartbeat table have no domain event: ignored
 *       (line deletes follow an order's delete). Tombstones (Debezium's key-only record after a delete) are ignored:
 *       the delete itself made the event.</li>
 *   <li>Anything that cannot be read (not the wire format, unknown schema id, missing columns, unknown table or op,
 *       an update of lines of a placed order) goes to {@code shop.cdc.changes.dlq} byte for byte with the reason
 *       (card numbers masked digit by digit, in the key, the value and the reason); processing continues. So does
 *       a change committed more than {@link EventTimes#MAX_AHEAD} after Connect wrote it (the database's clock
 *       ahead): every reader would refuse its events.</li>
 * </ul>
 *
 * <p>Time: an event's time is its change's commit time; its record is stamped with the time the raw change was
 * written (or the wall clock, for a registration released by the grace timer), so a commit time before 1970 is
 * carried in the event and is no record timestamp.
 *
 * <p>Ordering: the raw topic has one partition and all tables, so this single task sees changes in commit order; a
 * registration's pending customer insert is completed by its address, or released by the next record of another
 * transaction, or after {@link #REGISTRATION_GRACE} of wall-clock time (an idle database: the event is the same,
 * only later).
 *
 * <p>Exactly once: event ids are derived from the change's position (LSN, table, key, kind), so a change delivered
 * twice yields the same id; the {@value #SEEN_STORE} store remembers ids for {@link #SEEN_RETENTION} of stream time
 * and drops repeats. With {@code exactly_once_v2} the store, the pending store, the outputs and the input offsets
 * commit together.
 */
public final class CdcNormalisationTopology {

    public static final String SOURCE = "shop-cdc-changes";
    public static final String PROCESSOR = "cdc-normaliser";
    public static final String SEEN_STORE = "cdc-seen-event-ids";
    public static final String PENDING_STORE = "cdc-pending";
    public static final String CUSTOMERS_SINK = "shop-customers-sink";
    public static final String ORDERS_SINK = "shop-orders-sink";
    public static final String DLQ_SINK = "shop-cdc-changes-dlq-sink";
    public static final Duration SEEN_RETENTION = Duration.ofDays(7);
    /**
     * How long a registration waits, on the wall clock, for a record of another transaction before it is released
     * without an address. Only an idle database waits this long: any later transaction (Debezium's heartbeat, every
     * 2 s locally) releases it sooner. Not shorter: Connect's exactly-once source commits a poll's records as one
     * Kafka transaction, so a customer and its address can arrive in two, and under load the second came 250 ms
     * later (a registration split into one without an address plus an address change).
     */
    public static final Duration REGISTRATION_GRACE = Duration.ofSeconds(2);
    static final String RAW_TOPIC = Topics.CDC_SHOP_CHANGES.name();
    static final String DLQ_TOPIC = Topics.deadLetterOf(Topics.CDC_SHOP_CHANGES).name();
    static final String SOURCE_PREFIX = "debezium:shop.";

    private CdcNormalisationTopology() {
    }

    /** Serdes of the two outputs; built by the caller from the registry (or an in-memory one in tests). */
    public record Serdes2(Serde<CustomerEvent> customers, Serde<OrderEvent> orders) {
        public Serdes2 {
            Objects.requireNonNull(customers, "customers");
            Objects.requireNonNull(orders, "orders");
        }
    }

    public static Topology build(SchemaRegistryClient registry, Serdes2 serdes) {
        ShopChanges changes = new ShopChanges(registry);
        Topology topology = new Topology();
        topology.addSource(SOURCE, Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer(), RAW_TOPIC);
        topology.addProcessor(PROCESSOR, () -> new Normaliser(changes), SOURCE);
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(SEEN_STORE),
                Serdes.String(), Serdes.Long()), PROCESSOR);
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(PENDING_STORE),
                Serdes.String(), Serdes.ByteArray()), PROCESSOR);
        topology.addSink(CUSTOMERS_SINK, Topics.CUSTOMERS.name(), Serdes.String().serializer(),
                serdes.customers().serializer(), PROCESSOR);
        topology.addSink(ORDERS_SINK, Topics.ORDERS.name(), Serdes.String().serializer(),
                serdes.orders().serializer(), PROCESSOR);
        topology.addSink(DLQ_SINK, DLQ_TOPIC, Serdes.ByteArray().serializer(), Serdes.ByteArray().serializer(), PROCESSOR);
        return topology;
    }

    /** A deterministic event id: the same change (position, table, key) and kind always give the same id. */
    static String eventId(ShopChange change, String key, String kind) {
        return UUID.nameUUIDFromBytes((change.lsn() + ":" + change.table() + ":" + key + ":" + kind)
                .getBytes(StandardCharsets.UTF_8)).toString();
    }

    static final class Normaliser implements Processor<byte[], byte[], Object, Object> {

        private static final String CUSTOMER_PREFIX = "customer:";
        private static final String ORDER_PREFIX = "order:";

        private final ShopChanges changes;
        private ProcessorContext<Object, Object> context;
        private KeyValueStore<String, Long> seen;
        private KeyValueStore<String, byte[]> pending;
        /** Wall-clock time a registration became pending; memory only (after a restart: released at once). */
        private final java.util.Map<String, Long> pendingSince = new java.util.HashMap<>();
        /**
         * What the events emitted now are stamped with: the raw change's timestamp (when Connect wrote it), or the wall
         * clock when a punctuation releases them. Never the commit time, which is the database's clock and stays in
         * the event's envelope: a broker refuses a timestamp its own clock has not reached.
         */
        private long writtenAt;

        Normaliser(ShopChanges changes) {
            this.changes = changes;
        }

        @Override
        public void init(ProcessorContext<Object, Object> context) {
            this.context = context;
            this.seen = context.getStateStore(SEEN_STORE);
            this.pending = context.getStateStore(PENDING_STORE);
            context.schedule(REGISTRATION_GRACE, PunctuationType.WALL_CLOCK_TIME, this::releaseIdleRegistrations);
            context.schedule(Duration.ofMinutes(10), PunctuationType.STREAM_TIME, this::forgetOldIds);
        }

        @Override
        public void process(Record<byte[], byte[]> record) {
            if (record.value() == null) {
                return; // tombstone after a delete: the delete made the event
            }
            try {
                ShopChange change = changes.read(RAW_TOPIC, record.value());
                var tooFarAhead = EventTimes.tooFarAhead(change.committedAt(), Instant.ofEpochMilli(record.timestamp()));
                if (tooFarAhead.isPresent()) {
                    // The database's clock ahead of Connect's: its events would be dead-lettered by every reader.
                    throw new CdcRecordException("commit time: " + tooFarAhead.get());
                }
                writtenAt = record.timestamp();
                releaseRegistrations(change.txId());
                handle(change, record.value());
            } catch (CdcRecordException | IllegalArgumentException | ArithmeticException e) {
                deadLetter(record, e);
            }
        }

        private void handle(ShopChange change, byte[] raw) {
            switch (change.table()) {
                case "customers" -> customer(change, raw);
                case "addresses" -> address(change);
                case "orders" -> order(change, raw);
                case "order_lines" -> orderLine(change, raw);
                case "payment_methods", "cdc_heartbeat" -> { }
                default -> throw new CdcRecordException("change of unknown table shop." + change.table());
            }
        }

        // ------------------------------------------------------------------ customers

        private void customer(ShopChange change, byte[] raw) {
            String id = ShopChanges.requiredString(change.row(), "id");
            if (change.isInsert()) {
                ShopChanges.requiredString(change.after(), "email");
                ShopChanges.requiredInstant(change.after(), "registered_at");
                // Wait for the address of the same transaction (or the next transaction, or the grace period).
                pending.put(CUSTOMER_PREFIX + id, PendingRows.encode(List.of(raw)));
                pendingSince.put(id, context.currentSystemTimeMs());
            } else if (change.isUpdate()) {
                String previous = change.before() == null ? null : ShopChanges.string(change.before(), "email");
                String current = ShopChanges.requiredString(change.after(), "email");
                if (!current.equals(previous)) {
                    emitCustomer(change, id, "email-changed",
                            CustomerEmailChanged.newBuilder().setPrevious(previous).setCurrent(current).build());
                }
            } else {
                releaseRegistration(id, null);
                emitCustomer(change, id, "deleted", CustomerDeleted.newBuilder().setReason(null).build());
            }
        }

        private void address(ShopChange change) {
            String customerId = ShopChanges.requiredString(change.row(), "customer_id");
            if (change.isDelete()) {
                return;
            }
            Address current = address(change.after());
            byte[] pendingCustomer = pending.get(CUSTOMER_PREFIX + customerId);
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
            emitCustomer(change, customerId, "address-changed",
                    CustomerAddressChanged.newBuilder().setPrevious(previous).setCurrent(current).build());
        }

        /** Wall-clock release of registrations no record completed: an idle database. */
        private void releaseIdleRegistrations(long now) {
            writtenAt = now;
            List<String> ids = new ArrayList<>();
            try (KeyValueIterator<String, byte[]> it = pending.prefixScan(CUSTOMER_PREFIX, org.apache.kafka.common.serialization.Serdes.String().serializer())) {
                while (it.hasNext()) {
                    String id = it.next().key.substring(CUSTOMER_PREFIX.length());
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
        private void releaseRegistrations(long currentTxId) {
            List<String> ids = new ArrayList<>();
            try (KeyValueIterator<String, byte[]> it = pending.prefixScan(CUSTOMER_PREFIX, org.apache.kafka.common.serialization.Serdes.String().serializer())) {
                while (it.hasNext()) {
                    KeyValue<String, byte[]> kv = it.next();
                    ShopChange registration = changes.read(RAW_TOPIC, PendingRows.decode(kv.value).get(0));
                    if (registration.txId() != currentTxId) {
                        ids.add(kv.key.substring(CUSTOMER_PREFIX.length()));
                    }
                }
            }
            for (String id : ids) {
                releaseRegistration(id, null);
            }
        }

        private void releaseRegistration(String customerId, Address address) {
            byte[] stored = pending.get(CUSTOMER_PREFIX + customerId);
            if (stored == null) {
                return;
            }
            pending.delete(CUSTOMER_PREFIX + customerId);
            pendingSince.remove(customerId);
            ShopChange change = changes.read(RAW_TOPIC, PendingRows.decode(stored).get(0));
            GenericRecord row = change.after();
            emitCustomer(change, customerId, "registered", CustomerRegistered.newBuilder()
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

        private void emitCustomer(ShopChange change, String customerId, String kind, Object body) {
            String eventId = eventId(change, customerId, kind);
            CustomerEvent event = CustomerEvent.newBuilder()
                    .setEnvelope(Envelopes.create(eventId, customerId, change.committedAt(), change.capturedAt(),
                            SOURCE_PREFIX + change.table(), EventTypes.versionOf(CustomerEvent.class), "lsn:" + change.lsn()))
                    .setCustomerId(customerId)
                    .setChange(body)
                    .build();
            forwardOnce(eventId, customerId, event, CUSTOMERS_SINK);
        }

        // ------------------------------------------------------------------ orders

        private void order(ShopChange change, byte[] raw) {
            String id = ShopChanges.requiredString(change.row(), "id");
            if (change.isInsert()) {
                int lineCount = ShopChanges.requiredInt(change.after(), "line_count");
                if (lineCount < 1) {
                    throw new CdcRecordException("order " + id + " has line_count " + lineCount);
                }
                pending.put(ORDER_PREFIX + id, PendingRows.encode(List.of(raw)));
            } else if (change.isUpdate()) {
                String previous = change.before() == null ? null : ShopChanges.string(change.before(), "status");
                String current = ShopChanges.requiredString(change.after(), "status");
                if (current.equals(previous)) {
                    return;
                }
                String customerId = ShopChanges.requiredString(change.after(), "customer_id");
                if ("CANCELLED".equals(current)) {
                    emitOrder(change, id, customerId, "cancelled", OrderCancelled.newBuilder()
                            .setReason(ShopChanges.string(change.after(), "cancel_reason"))
                            .setPrevious(previous == null ? null : status(previous)).setTotal(total(change.after())).build());
                } else {
                    emitOrder(change, id, customerId, "status-changed", OrderStatusChanged.newBuilder()
                            .setPrevious(previous == null ? null : status(previous)).setCurrent(status(current))
                            .setTotal(total(change.after())).build());
                }
            } else {
                pending.delete(ORDER_PREFIX + id);
                String customerId = ShopChanges.requiredString(change.before(), "customer_id");
                String previous = ShopChanges.string(change.before(), "status");
                emitOrder(change, id, customerId, "deleted", OrderCancelled.newBuilder()
                        .setReason("deleted in the shop database")
                        .setPrevious(previous == null ? null : status(previous)).setTotal(total(change.before())).build());
            }
        }

        private void orderLine(ShopChange change, byte[] raw) {
            String orderId = ShopChanges.requiredString(change.row(), "order_id");
            if (change.isDelete()) {
                return;
            }
            byte[] stored = pending.get(ORDER_PREFIX + orderId);
            if (stored == null || !change.isInsert()) {
                throw new CdcRecordException("order line of order " + orderId + " changed outside the order's placement"
                        + " (no pending order): lines are written once, with their order");
            }
            List<byte[]> rows = PendingRows.decode(PendingRows.append(stored, raw));
            ShopChange header = changes.read(RAW_TOPIC, rows.get(0));
            int expected = ShopChanges.requiredInt(header.after(), "line_count");
            if (rows.size() - 1 < expected) {
                pending.put(ORDER_PREFIX + orderId, PendingRows.encode(rows));
                return;
            }
            pending.delete(ORDER_PREFIX + orderId);
            placeOrder(header, orderId, rows.subList(1, rows.size()));
        }

        private void placeOrder(ShopChange header, String orderId, List<byte[]> lineValues) {
            GenericRecord row = header.after();
            String currency = ShopChanges.requiredString(row, "currency").trim();
            List<GenericRecord> lineRows = new ArrayList<>();
            for (byte[] v : lineValues) {
                lineRows.add(changes.read(RAW_TOPIC, v).after());
            }
            lineRows.sort(Comparator.comparingInt(r -> ShopChanges.requiredInt(r, "line_no")));
            List<OrderLine> lines = new ArrayList<>();
            for (GenericRecord line : lineRows) {
                lines.add(OrderLine.newBuilder()
                        .setSku(ShopChanges.requiredString(line, "sku"))
                        .setQuantity(ShopChanges.requiredInt(line, "quantity"))
                        .setUnitPrice(Monies.of(ShopChanges.requiredDecimal(line, "unit_price"), currency))
                        .build());
            }
            OrderPlaced placed = OrderPlaced.newBuilder()
                    .setLines(lines)
                    .setTotal(Monies.of(ShopChanges.requiredDecimal(row, "total"), currency))
                    .setShippingAddress(Address.newBuilder()
                            .setLine1(ShopChanges.requiredString(row, "ship_line1"))
                            .setLine2(ShopChanges.string(row, "ship_line2"))
                            .setCity(ShopChanges.requiredString(row, "ship_city"))
                            .setPostalCode(ShopChanges.requiredString(row, "ship_postal_code"))
                            .setCountry(ShopChanges.requiredString(row, "ship_country").trim())
                            .setLocation(null).build())
                    .setPaymentMethodId(ShopChanges.string(row, "payment_method_id"))
                    .build();
            emitOrder(header, orderId, ShopChanges.requiredString(row, "customer_id"), "placed", placed);
        }

        /**
         * The order's total as the row holds it: carried on status changes and cancellations so that a consumer
         * keeping only some orders (the customer state) still knows what a cancellation takes off.
         */
        private static io.streamhouse.domain.event.Money total(GenericRecord row) {
            return Monies.of(ShopChanges.requiredDecimal(row, "total"), ShopChanges.requiredString(row, "currency").trim());
        }

        private static OrderStatus status(String value) {
            try {
                return OrderStatus.valueOf(value);
            } catch (IllegalArgumentException e) {
                return OrderStatus.UNKNOWN;
            }
        }

        private void emitOrder(ShopChange change, String orderId, String customerId, String kind, Object body) {
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

        // ------------------------------------------------------------------ exactly once, dead letters

        private void forwardOnce(String eventId, String key, Object event, String sink) {
            if (seen.get(eventId) != null) {
                return; // the same change delivered again: already emitted
            }
            seen.put(eventId, writtenAt); // forgotten by stream time, which is made of write times too
            context.forward(new Record<>(key, event, writtenAt), sink);
        }

        private void forgetOldIds(long streamTime) {
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

        private void deadLetter(Record<byte[], byte[]> record, Exception e) {
            RecordHeaders masked = new RecordHeaders();
            record.headers().forEach(h -> masked.add(h.key(), CardNumbers.mask(h.value())));
            // Byte for byte but for card numbers, masked digit by digit so the Avro framing still reads (docs/pii.md).
            var why = DeadLetterHeaderBuilder.because(CardNumbers.mask(String.valueOf(e.getMessage()))).exception(e).processor(PROCESSOR);
            context.recordMetadata().ifPresent(meta -> why.source(meta.topic(), meta.partition(), meta.offset()));
            Headers headers = why.schemaIdOf(record.value()).onto(masked);
            context.forward(new Record<Object, Object>(CardNumbers.mask(record.key()), CardNumbers.mask(record.value()),
                    record.timestamp(), headers), DLQ_SINK);
        }
    }
}
