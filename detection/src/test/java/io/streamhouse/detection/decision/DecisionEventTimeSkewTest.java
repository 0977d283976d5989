package io.streamhouse.detection.decision;

import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.ReviewOutcome;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.events.EventTimes;
import io.streamhouse.domain.testdata.Cards;
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
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Given an event on each input of the decision topology whose time is minutes, hours or years ahead of its record's
 * timestamp, or before 1970: expect it decided (taken into state) or dead-lettered with the reason (left out of a
 * global store, which serving dead-letters), the next event decided, and no record the topology writes (decisions,
 * the decided topic, changelogs, dead letters, flags) stamped before 1970 or further ahead of the write than
 * {@link EventTimes#MAX_AHEAD} (a broker takes up to an hour; the driver checks neither).
 */
class DecisionEventTimeSkewTest {
    private static final Instant WRITTEN = Times.T0;

    private final TopicSerdes serdes = new RegistryTopicSerdes(new InMemorySchemaRegistryClient());
    private TopologyTestDriver driver;

    @BeforeEach
    void start() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "decision-skew-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        driver = new TopologyTestDriver(DecisionTopology.build(new DecisionTopology.Config(Clock.fixed(WRITTEN, ZoneOffset.UTC)), serdes), props);
        DefaultRules.definitions().forEach(d -> input(Topics.RULES).pipeInput(d.getRuleId(), d, WRITTEN));
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    private <V> TestInputTopic<String, V> input(Topic<String, V> topic) {
        return driver.createInputTopic(topic.name(), new StringSerializer(), serdes.valueSerde(topic).serializer());
    }

    private static TransactionAuthorizationRequested payment(String id, Instant at) {
        return SampleEvents.transaction(id, Cards.ALICE, "12.50", "EUR", Merchants.GROCER_ROTTERDAM, at);
    }

    @ParameterizedTest
    @EnumSource(Skews.class)
    void aRequestOffItsWriteIsDecidedOrDeadLetteredAndTheCardsNextRequestIsDecided(Skews skew) {
        var requests = input(Topics.TRANSACTION_REQUESTS);
        requests.pipeInput(Cards.ALICE, payment("tx-before", WRITTEN.minus(Times.ONE_MINUTE)), WRITTEN);
        requests.pipeInput(Cards.ALICE, payment("tx-skewed", skew.eventTime(WRITTEN)), WRITTEN);
        requests.pipeInput(Cards.ALICE, payment("tx-next", WRITTEN), WRITTEN);

        var produced = produced();
        List<String> decided = produced.get(Topics.TRANSACTION_DECISIONS.name()).stream()
                .map(r -> new String(r.key(), StandardCharsets.UTF_8)).toList();
        var deadLetters = produced.getOrDefault(Topics.deadLetterOf(Topics.TRANSACTION_REQUESTS).name(), List.of());
        if (skew.taken()) {
            assertThat(decided).containsExactly("tx-before", "tx-skewed", "tx-next");
            assertThat(deadLetters).isEmpty();
        } else {
            assertThat(decided).as("the next request is decided").containsExactly("tx-before", "tx-next");
            assertThat(deadLetters).singleElement().satisfies(DecisionEventTimeSkewTest::isTooFarAhead);
            var activity = driver.<String, io.streamhouse.domain.state.CardActivity>getKeyValueStore(DecisionTopology.CARD_ACTIVITY_STORE)
                    .get(Cards.ALICE);
            assertThat(activity.getEntries()).as("the card's history is not pushed out by a future event")
                    .extracting(e -> e.getTransactionId()).containsExactly("tx-before", "tx-next");
        }
        assertBrokerTakesEveryTimestamp(produced);
    }

    @ParameterizedTest
    @EnumSource(Skews.class)
    void aReviewOffItsWriteFlagsTheCardOrIsDeadLetteredAndTheNextReviewFlags(Skews skew) {
        var reviews = input(Topics.REVIEW_OUTCOMES);
        reviews.pipeInput(Cards.ALICE, SampleEvents.reviewOutcome("rev-skewed", "tx-1", Cards.ALICE, ReviewOutcome.CONFIRMED_FRAUD,
                skew.eventTime(WRITTEN)), WRITTEN);
        reviews.pipeInput(Cards.BOB, SampleEvents.reviewOutcome("rev-next", "tx-2", Cards.BOB, ReviewOutcome.CONFIRMED_FRAUD, WRITTEN), WRITTEN);

        var produced = produced();
        List<String> flagged = produced.get(Topics.FRAUD_ALERTS.name()).stream()
                .map(r -> new String(r.key(), StandardCharsets.UTF_8)).toList();
        var deadLetters = produced.getOrDefault(Topics.deadLetterOf(Topics.REVIEW_OUTCOMES).name(), List.of());
        if (skew.taken()) {
            assertThat(flagged).containsExactly(Cards.ALICE, Cards.BOB);
            assertThat(deadLetters).isEmpty();
        } else {
            assertThat(flagged).as("the next review flags its card").containsExactly(Cards.BOB);
            assertThat(deadLetters).singleElement().satisfies(DecisionEventTimeSkewTest::isTooFarAhead);
        }
        assertBrokerTakesEveryTimestamp(produced);
    }

    /** The profiles are a global store: an event too far ahead is left out there (serving dead-letters it). */
    @ParameterizedTest
    @EnumSource(Skews.class)
    void aCustomerChangeOffItsWriteIsFoldedOrLeftOutAndTheNextIsFolded(Skews skew) {
        var customers = input(Topics.CUSTOMERS);
        customers.pipeInput("c-skewed", registered("c-skewed", skew.eventTime(WRITTEN)), WRITTEN);
        customers.pipeInput("c-next", registered("c-next", WRITTEN), WRITTEN);
        input(Topics.TRANSACTION_REQUESTS).pipeInput(Cards.ALICE, payment("tx-1", WRITTEN), WRITTEN);

        var profiles = driver.<String, Object>getKeyValueStore(DecisionTopology.CUSTOMER_PROFILES_GLOBAL);
        assertThat(profiles.get("c-skewed") != null).as("folded").isEqualTo(skew.taken());
        assertThat(profiles.get("c-next")).as("the next change is folded").isNotNull();
        var produced = produced();
        assertThat(produced.get(Topics.TRANSACTION_DECISIONS.name())).as("requests are decided").hasSize(1);
        assertBrokerTakesEveryTimestamp(produced);
    }

    /** Alerts and rules are kept as read (global tables, no changelog of their own); their times decide nothing here. */
    @ParameterizedTest
    @EnumSource(Skews.class)
    void anAlertOrRuleOffItsWriteIsKeptAndRequestsAreStillDecided(Skews skew) {
        input(Topics.FRAUD_ALERTS).pipeInput(Cards.BOB, io.streamhouse.domain.event.Alert.newBuilder(
                        (io.streamhouse.domain.event.Alert) SampleEvents.oneOfEach().stream()
                                .filter(e -> e instanceof io.streamhouse.domain.event.Alert).findFirst().orElseThrow())
                .setEnvelope(SampleEvents.envelope("evt-a-skewed", Cards.BOB, skew.eventTime(WRITTEN), io.streamhouse.domain.event.Alert.class))
                .setSubject(io.streamhouse.domain.event.AlertSubject.newBuilder().setKind(io.streamhouse.domain.event.SubjectKind.CARD)
                        .setId(Cards.BOB).build()).build(), WRITTEN);
        var rule = DefaultRules.definitions().get(0);
        input(Topics.RULES).pipeInput(rule.getRuleId(), io.streamhouse.domain.event.RuleDefinition.newBuilder(rule)
                .setEnvelope(SampleEvents.envelope("evt-rule-skewed", rule.getRuleId(), skew.eventTime(WRITTEN),
                        io.streamhouse.domain.event.RuleDefinition.class)).build(), WRITTEN);
        input(Topics.TRANSACTION_REQUESTS).pipeInput(Cards.ALICE, payment("tx-1", WRITTEN), WRITTEN);

        var produced = produced();
        assertThat(produced.get(Topics.TRANSACTION_DECISIONS.name())).as("requests are decided").hasSize(1);
        assertBrokerTakesEveryTimestamp(produced);
    }

    private static CustomerEvent registered(String id, Instant at) {
        return CustomerEvent.newBuilder().setEnvelope(SampleEvents.envelope("reg-" + id, id, at, CustomerEvent.class))
                .setCustomerId(id).setChange(CustomerRegistered.newBuilder().setEmail(id + "@example.org")
                        .setFullName("Customer " + id).setAddress(null).setRegisteredAt(at).build()).build();
    }

    private static void isTooFarAhead(TestRecord<byte[], byte[]> deadLetter) {
        assertThat(new String(deadLetter.headers().lastHeader(DeadLetterHeaders.REASON).value(), StandardCharsets.UTF_8))
                .contains("ahead of the time the event was written");
    }

    private static void assertBrokerTakesEveryTimestamp(Map<String, List<TestRecord<byte[], byte[]>>> produced) {
        produced.forEach((name, records) -> assertThat(records).as(name).allSatisfy(r -> assertThat(r.timestamp())
                .as("a timestamp a broker takes").isBetween(0L, WRITTEN.plus(EventTimes.MAX_AHEAD).toEpochMilli())));
    }

    /** Every record the topology wrote (changelogs and the decided topic included), by topic. */
    private Map<String, List<TestRecord<byte[], byte[]>>> produced() {
        var byTopic = new TreeMap<String, List<TestRecord<byte[], byte[]>>>();
        for (String name : driver.producedTopicNames()) {
            byTopic.put(name, new ArrayList<>(driver.createOutputTopic(name, Serdes.ByteArray().deserializer(),
                    Serdes.ByteArray().deserializer()).readRecordsToList()));
        }
        return byTopic;
    }
}
