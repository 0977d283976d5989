package io.streamhouse.ingest.cdc;

import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerDeleted;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.OrderCancelled;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.OrderStatus;
import io.streamhouse.domain.event.OrderStatusChanged;
import io.streamhouse.domain.topic.DeadLetterHeaders;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroSerde;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import static io.streamhouse.ingest.cdc.DebeziumEnvelopes.address;
import static io.streamhouse.ingest.cdc.DebeziumEnvelopes.customer;
import static io.streamhouse.ingest.cdc.DebeziumEnvelopes.line;
import static io.streamhouse.ingest.cdc.DebeziumEnvelopes.order;
import static org.assertj.core.api.Assertions.assertThat;

class CdcNormalisationTopologyTest {

    private final InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();
    private final DebeziumEnvelopes changes = new DebeziumEnvelopes(registry);
    private TopologyTestDriver driver;
    private TestInputTopic<byte[], byte[]> raw;
    private TestOutputTopic<String, CustomerEvent> customers;
    private TestOutputTopic<String, OrderEvent> orders;
    private TestOutputTopic<byte[], byte[]> dlq;

    @BeforeEach
    void start() {
        AvroSerde<CustomerEvent> customerSerde = new AvroSerde<>(registry, CustomerEvent.class, false);
        AvroSerde<OrderEvent> orderSerde = new AvroSerde<>(registry, OrderEvent.class, false);
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "cdc-test");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        driver = new TopologyTestDriver(CdcNormalisationTopology.build(registry,
                new CdcNormalisationTopology.Serdes2(customerSerde, orderSerde)), props);
        raw = driver.createInputTopic(Topics.CDC_SHOP_CHANGES.name(), Serdes.ByteArray().serializer(), Serdes.ByteArray().serializer());
        customers = driver.createOutputTopic(Topics.CUSTOMERS.name(), Serdes.String().deserializer(), customerSerde.deserializer());
        orders = driver.createOutputTopic(Topics.ORDERS.name(), Serdes.String().deserializer(), orderSerde.deserializer());
        dlq = driver.createOutputTopic(Topics.deadLetterOf(Topics.CDC_SHOP_CHANGES).name(),
                Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer());
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void registrationWithItsAddressInOneTransactionIsOneEvent() {
        raw.pipeInput(changes.change("customers", "c", null, customer("c-1", "ada@example.com"), 10));
        raw.pipeInput(changes.change("addresses", "c", null, address("c-1", "Coolsingel 1"), 10));

        List<TestRecord<String, CustomerEvent>> out = customers.readRecordsToList();
        assertThat(out).hasSize(1);
        assertThat(out.get(0).key()).isEqualTo("c-1");
        CustomerRegistered registered = (CustomerRegistered) out.get(0).value().getChange();
        assertThat(registered.getEmail()).isEqualTo("ada@example.com");
        assertThat(registered.getAddress().getLine1()).isEqualTo("Coolsingel 1");
        assertThat(out.get(0).value().getEnvelope().getSource()).isEqualTo("debezium:shop.customers");
        assertThat(pendingCount()).isZero();
    }

    @Test
    void registrationWithoutAddressIsReleasedByTheNextTransactionOrByTheClock() {
        raw.pipeInput(changes.change("customers", "c", null, customer("c-1", "a@example.com"), 10));
        assertThat(customers.isEmpty()).isTrue();
        raw.pipeInput(changes.change("customers", "c", null, customer("c-2", "b@example.com"), 11));
        assertThat(customers.readRecordsToList()).extracting(TestRecord::key).containsExactly("c-1");

        driver.advanceWallClockTime(CdcNormalisationTopology.REGISTRATION_GRACE.plusMillis(1));
        driver.advanceWallClockTime(CdcNormalisationTopology.REGISTRATION_GRACE.plusMillis(1));
        List<TestRecord<String, CustomerEvent>> out = customers.readRecordsToList();
        assertThat(out).extracting(TestRecord::key).containsExactly("c-2");
        assertThat(((CustomerRegistered) out.get(0).value().getChange()).getAddress()).isNull();
    }

    @Test
    void emailAndAddressUpdatesCarryThePreviousValue() {
        raw.pipeInput(changes.change("customers", "c", null, customer("c-1", "old@example.com"), 10));
        raw.pipeInput(changes.change("addresses", "c", null, address("c-1", "Old street 1"), 10));
        customers.readRecordsToList();

        raw.pipeInput(changes.change("customers", "u", customer("c-1", "old@example.com"), customer("c-1", "new@example.com"), 20));
        raw.pipeInput(changes.change("addresses", "u", address("c-1", "Old street 1"), address("c-1", "New street 2"), 21));
        // an update that changes neither e-mail nor address is no domain event
        raw.pipeInput(changes.change("customers", "u", customer("c-1", "new@example.com"), customer("c-1", "new@example.com"), 22));

        List<TestRecord<String, CustomerEvent>> out = customers.readRecordsToList();
        assertThat(out).hasSize(2);
        CustomerEmailChanged email = (CustomerEmailChanged) out.get(0).value().getChange();
        assertThat(email.getPrevious()).isEqualTo("old@example.com");
        assertThat(email.getCurrent()).isEqualTo("new@example.com");
        CustomerAddressChanged moved = (CustomerAddressChanged) out.get(1).value().getChange();
        assertThat(moved.getPrevious().getLine1()).isEqualTo("Old street 1");
        assertThat(moved.getCurrent().getLine1()).isEqualTo("New street 2");
    }

    @Test
    void deleteIsAnEventAndItsTombstoneIsNot() {
        raw.pipeInput(changes.change("customers", "c", null, customer("c-1", "a@example.com"), 10));
        raw.pipeInput(changes.change("customers", "d", customer("c-1", "a@example.com"), null, 11));
        raw.pipeInput(new TestRecord<byte[], byte[]>("{\"id\":\"c-1\"}".getBytes(StandardCharsets.UTF_8), null));

        List<TestRecord<String, CustomerEvent>> out = customers.readRecordsToList();
        assertThat(out).hasSize(2);
        assertThat(out.get(0).value().getChange()).isInstanceOf(CustomerRegistered.class);
        assertThat(out.get(1).value().getChange()).isInstanceOf(CustomerDeleted.class);
        assertThat(dlq.isEmpty()).isTrue();
    }

    @Test
    void anOrderIsPlacedOnceAllItsLinesArrivedWithExactAmounts() {
        raw.pipeInput(changes.change("orders", "c", null, order("o-1", "c-1", "PLACED", "30.0100", 2), 30));
        raw.pipeInput(changes.change("order_lines", "c", null, line("o-1", 2, "sku-b", 1, "10.0050"), 30));
        assertThat(orders.isEmpty()).as("one of two lines seen").isTrue();
        raw.pipeInput(changes.change("order_lines", "c", null, line("o-1", 1, "sku-a", 2, "10.0025"), 30));

        List<TestRecord<String, OrderEvent>> out = orders.readRecordsToList();
        assertThat(out).hasSize(1);
        assertThat(out.get(0).key()).isEqualTo("o-1");
        OrderPlaced placed = (OrderPlaced) out.get(0).value().getChange();
        assertThat(placed.getLines()).extracting(l -> l.getSku()).containsExactly("sku-a", "sku-b");
        assertThat(placed.getLines().get(0).getUnitPrice().getAmount()).isEqualByComparingTo(new BigDecimal("10.0025"));
        assertThat(placed.getTotal().getAmount()).isEqualTo(new BigDecimal("30.0100"));
        assertThat(placed.getTotal().getCurrency()).isEqualTo("EUR");
        assertThat(out.get(0).value().getCustomerId()).isEqualTo("c-1");
        assertThat(pendingCount()).isZero();
    }

    @Test
    void statusChangesCancellationAndDelete() {
        raw.pipeInput(changes.change("orders", "c", null, order("o-1", "c-1", "PLACED", "5", 1), 30));
        raw.pipeInput(changes.change("order_lines", "c", null, line("o-1", 1, "sku-a", 1, "5"), 30));
        raw.pipeInput(changes.change("orders", "u", order("o-1", "c-1", "PLACED", "5", 1), order("o-1", "c-1", "PAID", "5", 1), 31));
        raw.pipeInput(changes.change("orders", "u", order("o-1", "c-1", "PAID", "5", 1), order("o-1", "c-1", "CANCELLED", "5", 1), 32));
        raw.pipeInput(changes.change("orders", "d", order("o-1", "c-1", "CANCELLED", "5", 1), null, 33));
        raw.pipeInput(changes.change("order_lines", "d", line("o-1", 1, "sku-a", 1, "5"), null, 33));

        List<OrderEvent> out = orders.readValuesToList();
        assertThat(out).hasSize(4);
        assertThat(out.get(0).getChange()).isInstanceOf(OrderPlaced.class);
        OrderStatusChanged paid = (OrderStatusChanged) out.get(1).getChange();
        assertThat(paid.getPrevious()).isEqualTo(OrderStatus.PLACED);
        assertThat(paid.getCurrent()).isEqualTo(OrderStatus.PAID);
        assertThat(paid.getTotal().getAmount()).isEqualByComparingTo(new BigDecimal("5"));
        OrderCancelled cancelled = (OrderCancelled) out.get(2).getChange();
        assertThat(cancelled.getPrevious()).isEqualTo(OrderStatus.PAID);
        assertThat(cancelled.getTotal().getAmount()).isEqualByComparingTo(new BigDecimal("5"));
        assertThat(cancelled.getTotal().getCurrency()).isEqualTo("EUR");
        OrderCancelled deleted = (OrderCancelled) out.get(3).getChange();
        assertThat(deleted.getReason()).contains("deleted");
        assertThat(deleted.getPrevious()).as("deleted once cancelled: takes nothing more off the spend").isEqualTo(OrderStatus.CANCELLED);
        assertThat(deleted.getTotal().getAmount()).isEqualByComparingTo(new BigDecimal("5"));
        assertThat(dlq.isEmpty()).isTrue();
    }

    @Test
    void aRedeliveredChangeHasTheSameIdAndIsDroppedOnce() {
        byte[] insert = changes.change("customers", "c", null, customer("c-1", "a@example.com"), 10);
        byte[] update = changes.change("customers", "u", customer("c-1", "a@example.com"), customer("c-1", "b@example.com"), 11);
        raw.pipeInput(insert);
        raw.pipeInput(update);
        // the source delivers the same two changes again (same LSNs), as a non-transactional source could after a crash
        raw.pipeInput(insert);
        raw.pipeInput(update);
        driver.advanceWallClockTime(Duration.ofSeconds(1));

        List<CustomerEvent> out = customers.readValuesToList();
        assertThat(out).hasSize(2);
        assertThat(out).extracting(e -> e.getEnvelope().getEventId()).doesNotHaveDuplicates();
        assertThat(out.get(0).getEnvelope().getEventId()).isEqualTo(CdcNormalisationTopology.eventId(
                new ShopChange("customers", "c", null, null, 1001, 10, DebeziumEnvelopes.T0, DebeziumEnvelopes.T0), "c-1", "registered"));
    }

    @Test
    void malformedRecordsGoToTheDeadLetterTopicWithTheReasonAndProcessingContinues() {
        raw.pipeInput("k".getBytes(StandardCharsets.UTF_8), "not the wire format".getBytes(StandardCharsets.UTF_8));
        raw.pipeInput(changes.change("order_lines", "c", null, line("o-9", 1, "sku", 1, "1"), 40)); // no pending order
        raw.pipeInput(new byte[] {0, 0, 0, 3, (byte) 0xE7, 1, 2}); // unknown schema id
        raw.pipeInput(changes.change("orders", "c", null, order("o-2", "c-1", "PLACED", "1", 1), 41));
        raw.pipeInput(changes.change("order_lines", "c", null, line("o-2", 1, "sku", 1, "1"), 41));

        List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
        assertThat(dead).hasSize(3);
        assertThat(reason(dead.get(0))).contains("magic byte");
        assertThat(reason(dead.get(1))).contains("outside the order's placement");
        assertThat(reason(dead.get(2))).contains("schema id 999");
        assertThat(new String(dead.get(0).value(), StandardCharsets.UTF_8)).isEqualTo("not the wire format");
        assertThat(new String(dead.get(0).headers().lastHeader(DeadLetterHeaders.SOURCE_TOPIC).value(), StandardCharsets.UTF_8))
                .isEqualTo("shop.cdc.changes");
        assertThat(orders.readValuesToList()).hasSize(1);
    }

    @Test
    void noCardNumberTypedIntoTheShopDatabaseReachesAnOutputOrADeadLetterInClear() {
        String visa = "4111111111111111";
        String master = "5555555555554444";
        raw.pipeInput(changes.change("customers", "c", null, customer("c-pan", visa + "@example.com"), 10));
        raw.pipeInput(changes.change("addresses", "c", null, address("c-pan", "Card 4111 1111 1111 1111"), 10));
        raw.pipeInput(("k" + master).getBytes(StandardCharsets.UTF_8), ("not the wire format " + master).getBytes(StandardCharsets.UTF_8));
        raw.pipeInput(changes.change("order_lines", "c", null, line("o-pan", 1, "sku-" + master, 1, "1"), 40)); // no pending order

        var scanner = new io.streamhouse.domain.pii.PanScanner();
        for (String topic : List.of(Topics.CUSTOMERS.name(), Topics.ORDERS.name(), Topics.deadLetterOf(Topics.CDC_SHOP_CHANGES).name())) {
            for (var r : driver.createOutputTopic(topic, Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer())
                    .readRecordsToList()) {
                scanner.scan(topic + " key", r.key());
                scanner.scan(topic + " value", r.value());
                r.headers().forEach(h -> scanner.scan(topic + " header " + h.key(), h.value()));
            }
        }
        assertThat(scanner.scannedTexts()).as("a customer and two dead letters were scanned").isGreaterThanOrEqualTo(5);
        assertThat(scanner.hits()).isEmpty();
    }

    @Test
    void aDeadLetterKeepsItsBytesButForCardNumbersDigitByDigit() {
        raw.pipeInput(changes.change("order_lines", "c", null, line("o-pan", 1, "sku-5555555555554444", 1, "1"), 40));
        var dead = dlq.readRecordsToList();
        assertThat(dead).hasSize(1);
        assertThat(new String(dead.get(0).value(), StandardCharsets.ISO_8859_1)).contains("sku-****************");
        assertThat(reason(dead.get(0))).contains("outside the order's placement");
    }

    @Test
    void aCardNumberInACustomersTextColumnsIsMaskedOnTheEvent() {
        raw.pipeInput(changes.change("customers", "c", null, customer("c-pan", "4111111111111111@example.com"), 10));
        raw.pipeInput(changes.change("addresses", "c", null, address("c-pan", "Card 4111 1111 1111 1111"), 10));
        CustomerRegistered registered = (CustomerRegistered) customers.readValuesToList().get(0).getChange();
        assertThat(registered.getEmail()).isEqualTo("[pan]@example.com");
        assertThat(registered.getAddress().getLine1()).isEqualTo("Card [pan]");
    }

    private static String reason(TestRecord<byte[], byte[]> r) {
        return new String(r.headers().lastHeader(DeadLetterHeaders.REASON).value(), StandardCharsets.UTF_8);
    }

    private long pendingCount() {
        KeyValueStore<String, byte[]> store = driver.getKeyValueStore(CdcNormalisationTopology.PENDING_STORE);
        long n = 0;
        try (var it = store.all()) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    /**
     * A change committed by a database clock minutes, hours or years ahead of the time Connect wrote it, or before 1970:
     * normalised or dead-lettered with the reason, the next change normalised, and every record written stamped with a
     * time a broker takes (no earlier than 1970, no further ahead of the write than EventTimes.MAX_AHEAD; the driver
     * checks neither).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(io.streamhouse.domain.testdata.Skews.class)
    void aChangeCommittedOffItsWriteIsNormalisedOrDeadLetteredAndTheNextIsNormalised(io.streamhouse.domain.testdata.Skews skew) {
        java.time.Instant written = io.streamhouse.domain.testdata.Times.T0;
        raw.pipeInput(null, changes.committedAt("customers", "u", customer("c-1", "old@example.com"), customer("c-1", "skewed@example.com"),
                10, skew.eventTime(written)), written);
        raw.pipeInput(null, changes.committedAt("customers", "u", customer("c-2", "old@example.com"), customer("c-2", "next@example.com"),
                11, written), written);

        List<TestRecord<String, CustomerEvent>> out = customers.readRecordsToList();
        List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
        assertThat(out).as("stamped when written").allSatisfy(r -> assertThat(r.timestamp()).isEqualTo(written.toEpochMilli()));
        assertThat(dead).as("stamped when written").allSatisfy(r -> assertThat(r.timestamp()).isEqualTo(written.toEpochMilli()));
        for (String name : driver.producedTopicNames()) {
            assertThat(driver.createOutputTopic(name, Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer()).readRecordsToList())
                    .as(name).allSatisfy(r -> assertThat(r.timestamp()).as("a timestamp a broker takes")
                            .isBetween(0L, written.plus(io.streamhouse.domain.events.EventTimes.MAX_AHEAD).toEpochMilli()));
        }
        if (skew.taken()) {
            assertThat(out).extracting(TestRecord::key).containsExactly("c-1", "c-2");
            assertThat(out.get(0).value().getEnvelope().getOccurredAt()).as("the commit time").isEqualTo(skew.eventTime(written));
            assertThat(dead).isEmpty();
        } else {
            assertThat(out).extracting(TestRecord::key).as("the next change is normalised").containsExactly("c-2");
            assertThat(dead).singleElement().satisfies(r -> assertThat(new String(r.headers().lastHeader(DeadLetterHeaders.REASON).value(),
                    StandardCharsets.UTF_8)).contains("ahead of the time the event was written"));
        }
    }
}
