package io.streamhouse.ingest.cdc;

import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerDeleted;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.OrderCancelled;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.OrderStatusChanged;
import io.streamhouse.domain.events.EventTimes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.SchemaRegistryClient;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.Stores;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
        topology.addProcessor(PROCESSOR, () -> new ShopChangeProcessor(changes), SOURCE);
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
}
