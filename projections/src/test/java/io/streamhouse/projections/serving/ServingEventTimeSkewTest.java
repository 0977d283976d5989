package io.streamhouse.projections.serving;

import io.streamhouse.domain.decision.CardFeatures;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderLine;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.events.EventTimes;
import io.streamhouse.domain.events.Monies;
import io.streamhouse.domain.testdata.Hubs;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Skews;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.DeadLetterHeaders;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Given an event on each input of the serving topology whose time is minutes, hours or years ahead of its record's
 * timestamp, or before 1970: expect it folded or dead-lettered with the reason, the next event folded, and no record
 * (changelog, repartition, dead letter, profile) stamped with a time a broker refuses: before 1970, or further ahead of
 * the write than {@link EventTimes#MAX_AHEAD} (a broker takes up to an hour; the driver checks neither).
 */
class ServingEventTimeSkewTest {
    private static final Instant WRITTEN = Times.T0;

    private final TopicSerdes serdes = new RegistryTopicSerdes(new InMemorySchemaRegistryClient());
    private TopologyTestDriver driver;

    /** One input: its topic, the store its events are folded into, and an event of one aggregate at a time. */
    record Input<V>(Topic<String, V> topic, String store, BiFunction<String, Instant, V> event,
                    java.util.function.Function<String, String> recordKey, java.util.function.Function<String, String> storeKey) {
        @Override
        public String toString() {
            return topic.name();
        }
    }

    static Stream<Arguments> inputsAndSkews() {
        List<Input<?>> inputs = List.of(
                new Input<>(Topics.PARCEL_SCANS, ServingStores.PARCEL_TRACKING, ServingEventTimeSkewTest::scan, id -> "P-" + id, id -> "P-" + id),
                new Input<>(Topics.VEHICLE_TELEMETRY, ServingStores.VEHICLE_HEALTH, ServingEventTimeSkewTest::telemetry,
                        id -> "truck-" + id, id -> "truck-" + id),
                new Input<>(Topics.FRAUD_ALERTS, ServingStores.SUBJECT_ALERTS,
                        (id, at) -> ServingTopologyTest.alert("a-" + id, SubjectKind.CARD, "card-" + id, AlertType.CARD_TESTING, at),
                        id -> "card-" + id, id -> "card-" + id),
                new Input<>(Topics.PARCEL_ALERTS, ServingStores.SUBJECT_ALERTS,
                        (id, at) -> ServingTopologyTest.alert("a-" + id, SubjectKind.PARCEL, "P-" + id, AlertType.PARCEL_SLA_BREACH, at),
                        id -> "P-" + id, id -> "P-" + id),
                new Input<>(Topics.MAINTENANCE_ALERTS, ServingStores.SUBJECT_ALERTS,
                        (id, at) -> ServingTopologyTest.alert("a-" + id, SubjectKind.VEHICLE, "truck-" + id, AlertType.ENGINE_OVERHEATING, at),
                        id -> "truck-" + id, id -> "truck-" + id),
                new Input<>(Topics.CUSTOMERS, ServingStores.CUSTOMER_STATE, ServingEventTimeSkewTest::registered, id -> "c-" + id, id -> "c-" + id),
                new Input<>(Topics.ORDERS, ServingStores.CUSTOMER_STATE, ServingEventTimeSkewTest::placed, id -> "o-" + id, id -> "c-" + id),
                new Input<>(Topics.TRANSACTION_DECISIONS, ServingStores.CUSTOMER_STATE, ServingEventTimeSkewTest::decision,
                        id -> "tx-" + id, id -> "c-" + id));
        return inputs.stream().flatMap(input -> Stream.of(Skews.values()).map(skew -> Arguments.of(input, skew)));
    }

    @BeforeEach
    void start() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "serving-skew-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        driver = new TopologyTestDriver(ServingTopology.build(ServingTopology.Config.defaults(), serdes, new OpenStores()), props);
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("inputsAndSkews")
    <V> void anEventOffItsWriteIsFoldedOrDeadLetteredAndTheNextIsFolded(Input<V> input, Skews skew) {
        var topic = driver.createInputTopic(input.topic().name(), new StringSerializer(), serdes.valueSerde(input.topic()).serializer());
        topic.pipeInput(input.recordKey().apply("skewed"), input.event().apply("skewed", skew.eventTime(WRITTEN)), WRITTEN);
        topic.pipeInput(input.recordKey().apply("next"), input.event().apply("next", WRITTEN), WRITTEN);

        VersionedKeyValueStore<String, ?> store = driver.getVersionedKeyValueStore(input.store());
        var produced = produced();
        List<TestRecord<byte[], byte[]>> deadLetters = produced.getOrDefault(Topics.deadLetterOf(input.topic()).name(), List.of());
        produced.forEach((name, records) -> assertThat(records).as(name).allSatisfy(r -> assertThat(r.timestamp())
                .as("a timestamp a broker takes").isBetween(0L, WRITTEN.plus(EventTimes.MAX_AHEAD).toEpochMilli())));
        if (skew.taken()) {
            assertThat(store.get(input.storeKey().apply("skewed"))).as("folded").isNotNull();
            assertThat(deadLetters).as("not dead-lettered").isEmpty();
        } else {
            assertThat(store.get(input.storeKey().apply("skewed"))).as("not folded").isNull();
            assertThat(deadLetters).as("dead-lettered").hasSize(1);
            assertThat(new String(deadLetters.get(0).headers().lastHeader(DeadLetterHeaders.REASON).value(), StandardCharsets.UTF_8))
                    .contains("ahead of the time the event was written");
        }
        assertThat(store.get(input.storeKey().apply("next"))).as("the next event is folded").isNotNull();
        assertThat(produced).as("the store's changelog is among the records checked").containsKey("serving-skew-test-" + input.store() + "-changelog");
    }

    /** Every record the topology wrote (changelogs and repartitions included), by topic. */
    private java.util.Map<String, List<TestRecord<byte[], byte[]>>> produced() {
        var byTopic = new java.util.TreeMap<String, List<TestRecord<byte[], byte[]>>>();
        for (String name : driver.producedTopicNames()) {
            byTopic.put(name, new ArrayList<>(driver.createOutputTopic(name, Serdes.ByteArray().deserializer(),
                    Serdes.ByteArray().deserializer()).readRecordsToList()));
        }
        return byTopic;
    }

    private static ParcelScanned scan(String id, Instant at) {
        return ParcelScanned.newBuilder().setEnvelope(SampleEvents.envelope("scan-" + id, "P-" + id, at, ParcelScanned.class))
                .setParcelId("P-" + id).setHubId(Hubs.ROTTERDAM).setStatus(ParcelStatus.RECEIVED_AT_HUB).setVehicleId(null)
                .setLocation(Hubs.ROTTERDAM_POS).setPromisedBy(at.plus(Times.ONE_HOUR)).build();
    }

    private static VehicleTelemetry telemetry(String id, Instant at) {
        return VehicleTelemetry.newBuilder().setEnvelope(SampleEvents.envelope("tel-" + id, "truck-" + id, at, VehicleTelemetry.class))
                .setVehicleId("truck-" + id).setPosition(Hubs.ANTWERP_POS).setSpeedKmh(72.5).setCoolantTempC(91.0)
                .setOdometerKm(120_345.6).setFaultCodes(List.of()).build();
    }

    private static CustomerEvent registered(String id, Instant at) {
        return CustomerEvent.newBuilder().setEnvelope(SampleEvents.envelope("reg-" + id, "c-" + id, at, CustomerEvent.class))
                .setCustomerId("c-" + id).setChange(CustomerRegistered.newBuilder().setEmail(id + "@example.org")
                        .setFullName("Customer " + id).setAddress(null).setRegisteredAt(at).build()).build();
    }

    private static OrderEvent placed(String id, Instant at) {
        return OrderEvent.newBuilder().setEnvelope(SampleEvents.envelope("ord-" + id, "o-" + id, at, OrderEvent.class))
                .setOrderId("o-" + id).setCustomerId("c-" + id)
                .setChange(OrderPlaced.newBuilder()
                        .setLines(List.of(OrderLine.newBuilder().setSku("sku-1").setQuantity(1).setUnitPrice(Monies.of("10.00", "EUR")).build()))
                        .setTotal(Monies.of("10.00", "EUR")).setShippingAddress(SampleEvents.address("Coolsingel 40", "Rotterdam"))
                        .setPaymentMethodId("pm-1").build())
                .build();
    }

    private static io.streamhouse.domain.event.TransactionDecision decision(String id, Instant at) {
        var tx = SampleEvents.transaction("tx-" + id, "card-" + id, "12.50", "EUR", Merchants.GROCER_ROTTERDAM, at);
        tx.setCustomerId("c-" + id);
        return Decisions.toEvent(tx, DefaultRules.ruleSet().decide(tx,
                Features.of(CardFeatures.firstPayment(tx.getTransactionId(), tx.getAmount().getAmount()))), at);
    }
}
