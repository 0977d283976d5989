package io.streamhouse.detection.decision;

import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.DeadLetterHeaders;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/** Given rules on the rules topic, when requests arrive, expect decisions (or dead letters) on the output topics. */
class DecisionTopologyTest {
    private final InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();
    private final TopicSerdes serdes = new RegistryTopicSerdes(registry);
    private final Clock clock = Clock.fixed(Times.T0.plusMillis(30), ZoneOffset.UTC);
    private TopologyTestDriver driver;
    private TestInputTopic<String, RuleDefinition> rules;
    private TestInputTopic<String, TransactionAuthorizationRequested> requests;
    private TestInputTopic<String, byte[]> rawRequests;
    private TestOutputTopic<String, TransactionDecision> decisions;
    private TestOutputTopic<String, byte[]> deadLetters;

    @BeforeEach
    void start() {
        startWith(new DecisionTopology.Config(clock));
    }

    private void startWith(DecisionTopology.Config config) {
        if (driver != null) {
            driver.close();
        }
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "decision-topology-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        driver = new TopologyTestDriver(DecisionTopology.build(config, serdes), props);
        rules = driver.createInputTopic(Topics.RULES.name(), new StringSerializer(), serdes.valueSerde(Topics.RULES).serializer());
        requests = driver.createInputTopic(Topics.TRANSACTION_REQUESTS.name(), new StringSerializer(),
                serdes.valueSerde(Topics.TRANSACTION_REQUESTS).serializer());
        rawRequests = driver.createInputTopic(Topics.TRANSACTION_REQUESTS.name(), new StringSerializer(),
                Serdes.ByteArray().serializer());
        decisions = driver.createOutputTopic(Topics.TRANSACTION_DECISIONS.name(), new StringDeserializer(),
                serdes.valueSerde(Topics.TRANSACTION_DECISIONS).deserializer());
        deadLetters = driver.createOutputTopic(Topics.deadLetterOf(Topics.TRANSACTION_REQUESTS).name(),
                new StringDeserializer(), Serdes.ByteArray().deserializer());
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    private void givenDefaultRules() {
        DefaultRules.definitions().forEach(d -> rules.pipeInput(d.getRuleId(), d));
    }

    private TransactionAuthorizationRequested payment(String id, String amount) {
        return SampleEvents.transaction(id, Cards.ALICE, amount, "EUR", Merchants.GROCER_ROTTERDAM, Times.T0);
    }

    @Test
    void largePaymentIsHeldForReviewWithItsReason() {
        givenDefaultRules();
        requests.pipeInput(Cards.ALICE, payment("tx-1", "1500.00"));

        var decision = decisions.readKeyValue();
        assertThat(decision.key).isEqualTo("tx-1");
        assertThat(decision.value.getOutcome()).isEqualTo(DecisionOutcome.REVIEW);
        assertThat(decision.value.getRuleSetVersion()).isEqualTo(10);
        assertThat(decision.value.getReasons()).singleElement().satisfies(r -> {
            assertThat(r.getRuleId()).isEqualTo("large-amount-review");
            assertThat(r.getFacts()).containsEntry("amount", "1500.0000");
        });
        assertThat(decision.value.getDecisionLatencyMillis()).isEqualTo(25);
        assertThat(decisions.isEmpty()).isTrue();
    }

    @Test
    void withNoRulesPublishedEverythingIsAllowedAtRuleSetVersionZero() {
        requests.pipeInput(Cards.ALICE, payment("tx-2", "50000"));
        var decision = decisions.readValue();
        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.ALLOW);
        assertThat(decision.getRuleSetVersion()).isZero();
    }

    @Test
    void aNewRuleVersionAppliesFromTheNextRequestWithoutRestart() {
        givenDefaultRules();
        requests.pipeInput(Cards.ALICE, payment("tx-a", "600"));
        RuleDefinition lowered = RuleDefinition.newBuilder(DefaultRules.definitions().get(0)).setVersion(2)
                .setParameters(Map.of("threshold", "500", "currency", "EUR")).build();
        rules.pipeInput(lowered.getRuleId(), lowered);
        requests.pipeInput(Cards.ALICE, payment("tx-b", "600"));

        var before = decisions.readValue();
        var after = decisions.readValue();
        assertThat(before.getOutcome()).isEqualTo(DecisionOutcome.ALLOW);
        assertThat(before.getRuleSetVersion()).isEqualTo(10);
        assertThat(after.getOutcome()).isEqualTo(DecisionOutcome.REVIEW);
        assertThat(after.getRuleSetVersion()).isEqualTo(11);
        assertThat(after.getReasons().get(0).getRuleVersion()).isEqualTo(2);
    }

    @Test
    void unreadableRequestGoesToTheDeadLetterTopicAndProcessingContinues() {
        givenDefaultRules();
        byte[] garbage = "{\"amount\": 12}".getBytes(StandardCharsets.UTF_8);
        rawRequests.pipeInput("tx-bad", garbage);
        requests.pipeInput(Cards.ALICE, payment("tx-good", "10"));

        TestRecord<String, byte[]> dead = deadLetters.readRecord();
        assertThat(dead.key()).isEqualTo("tx-bad");
        assertThat(dead.value()).isEqualTo(garbage);
        assertThat(header(dead, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo(Topics.TRANSACTION_REQUESTS.name());
        assertThat(header(dead, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("0");
        assertThat(header(dead, DeadLetterHeaders.REASON)).contains("magic byte");
        assertThat(decisions.readValue().getTransactionId()).isEqualTo("tx-good");
    }

    @Test
    void aBrokenRuleDefinitionIsSkippedNotFatal() {
        givenDefaultRules();
        driver.createInputTopic(Topics.RULES.name(), new StringSerializer(), Serdes.ByteArray().serializer())
                .pipeInput("junk-rule", new byte[]{0, 0, 0, 0, 99, 1});
        requests.pipeInput(Cards.ALICE, payment("tx-3", "2000"));
        var decision = decisions.readValue();
        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.REVIEW);
        assertThat(decision.getRuleSetVersion()).isEqualTo(10);
    }

    @Test
    void theFifthPaymentOfACardWithinAMinuteIsHeldAndTheCardsStateIsKept() {
        givenDefaultRules();
        for (int i = 0; i < 5; i++) {
            requests.pipeInput(Cards.ALICE, SampleEvents.transaction("v-" + i, Cards.ALICE, "5", "EUR",
                    Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(10L * i)));
        }
        requests.pipeInput(Cards.BOB, SampleEvents.transaction("v-bob", Cards.BOB, "5", "EUR",
                Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(41)));
        var outcomes = decisions.readKeyValuesToMap();
        assertThat(outcomes).containsOnlyKeys("v-0", "v-1", "v-2", "v-3", "v-4", "v-bob");
        assertThat(outcomes.get("v-3").getOutcome()).isEqualTo(DecisionOutcome.ALLOW);
        assertThat(outcomes.get("v-4").getOutcome()).isEqualTo(DecisionOutcome.REVIEW);
        assertThat(outcomes.get("v-4").getReasons().get(0).getRuleId()).isEqualTo("card-velocity-1m-review");
        assertThat(outcomes.get("v-bob").getOutcome()).as("another card has its own state").isEqualTo(DecisionOutcome.ALLOW);

        var store = driver.<String, io.streamhouse.domain.state.CardActivity>getKeyValueStore(DecisionTopology.CARD_ACTIVITY_STORE);
        assertThat(store.get(Cards.ALICE).getEntries()).hasSize(5);
        assertThat(store.get(Cards.BOB).getEntries()).hasSize(1);
    }

    @Test
    void paymentsSpreadOverMoreThanAMinuteAreNotAVelocityBurst() {
        givenDefaultRules();
        for (int i = 0; i < 5; i++) {
            requests.pipeInput(Cards.ALICE, SampleEvents.transaction("s-" + i, Cards.ALICE, "5", "EUR",
                    Merchants.GROCER_ROTTERDAM, Times.T0.plusSeconds(15L * i)));
        }
        assertThat(decisions.readValuesToList()).extracting(TransactionDecision::getOutcome)
                .containsOnly(DecisionOutcome.ALLOW);
    }

    @Test
    void aRequestNotKeyedByItsCardIsDeadLetteredBecauseItWouldMissTheCardsState() {
        givenDefaultRules();
        requests.pipeInput("tx-keyed-wrong", payment("tx-keyed-wrong", "10"));
        assertThat(decisions.isEmpty()).isTrue();
        var dead = deadLetters.readRecord();
        assertThat(header(dead, DeadLetterHeaders.REASON)).contains("not the event's aggregate id").contains(Cards.ALICE);
    }

    private TestInputTopic<String, io.streamhouse.domain.event.CustomerEvent> customers() {
        return driver.createInputTopic(Topics.CUSTOMERS.name(), new StringSerializer(), serdes.valueSerde(Topics.CUSTOMERS).serializer());
    }

    private io.streamhouse.domain.event.CustomerEvent customerEvent(String eventId, java.time.Instant at, Object change) {
        return io.streamhouse.domain.event.CustomerEvent.newBuilder()
                .setEnvelope(SampleEvents.envelope(eventId, "c-1", at, io.streamhouse.domain.event.CustomerEvent.class))
                .setCustomerId("c-1").setChange(change).build();
    }

    private static Object addressChange() {
        return io.streamhouse.domain.event.CustomerAddressChanged.newBuilder()
                .setPrevious(null).setCurrent(SampleEvents.address("Nieuwe Binnenweg 1", "Rotterdam")).build();
    }

    @Test
    void aLargePaymentSoonAfterAnAddressChangeIsHeld() {
        givenDefaultRules();
        customers().pipeInput("c-1", customerEvent("evt-addr", Times.T0, addressChange()));

        requests.pipeInput(Cards.ALICE, SampleEvents.transaction("ato-1", Cards.ALICE, "300", "EUR",
                Merchants.JEWELLER_ANTWERP, Times.T0.plus(Times.ONE_MINUTE.multipliedBy(10))));
        requests.pipeInput(Cards.ALICE, SampleEvents.transaction("ato-2", Cards.ALICE, "300", "EUR",
                Merchants.JEWELLER_ANTWERP, Times.T0.plus(Times.ONE_HOUR.multipliedBy(2))));
        var outcomes = decisions.readKeyValuesToMap();
        assertThat(outcomes.get("ato-1").getOutcome()).isEqualTo(DecisionOutcome.REVIEW);
        assertThat(outcomes.get("ato-1").getReasons()).extracting(r -> r.getRuleId()).contains("recent-profile-change-review");
        assertThat(outcomes.get("ato-1").getReasons().get(0).getFacts()).containsEntry("addressChangedAt", Times.T0.toString());
        assertThat(outcomes.get("ato-2").getOutcome()).as("two hours later the change is no longer recent").isEqualTo(DecisionOutcome.ALLOW);
    }

    /**
     * A rebuild's cut bounds the global profile store too: Streams reads a global store's input to its end, so a
     * change logged at or past the cut must not reach the decisions of a rebuild that ends before it.
     */
    @Test
    void theProfileStoreAppliesNoChangeAtOrPastTheGlobalEnd() {
        startWith(new DecisionTopology.Config(clock, io.streamhouse.plumbing.OutputTopics.LIVE,
                java.util.Map.of(new org.apache.kafka.common.TopicPartition(Topics.CUSTOMERS.name(), 0), 1L)));
        givenDefaultRules();
        var other = io.streamhouse.domain.event.CustomerEvent.newBuilder(customerEvent("evt-other", Times.T0, addressChange()))
                .setCustomerId("c-2").build();
        customers().pipeInput("c-2", other);
        customers().pipeInput("c-1", customerEvent("evt-addr", Times.T0, addressChange()));

        requests.pipeInput(Cards.ALICE, SampleEvents.transaction("ato-cut", Cards.ALICE, "300", "EUR",
                Merchants.JEWELLER_ANTWERP, Times.T0.plus(Times.ONE_MINUTE.multipliedBy(10))));

        TransactionDecision decision = decisions.readValue();
        assertThat(decision.getReasons()).as("the address change at offset 1, past the end").extracting(r -> r.getRuleId())
                .doesNotContain("recent-profile-change-review");
    }

    @Test
    void aNewAccountsLargePaymentIsHeld() {
        givenDefaultRules();
        customers().pipeInput("c-1", customerEvent("evt-reg", Times.T0.minus(Times.ONE_HOUR), io.streamhouse.domain.event.CustomerRegistered.newBuilder()
                .setEmail("new@example.org").setFullName("New Customer").setAddress(null)
                .setRegisteredAt(Times.T0.minus(Times.ONE_HOUR)).build()));
        requests.pipeInput(Cards.ALICE, SampleEvents.transaction("new-1", Cards.ALICE, "600", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0));
        var d = decisions.readValue();
        assertThat(d.getOutcome()).isEqualTo(DecisionOutcome.REVIEW);
        assertThat(d.getReasons()).extracting(r -> r.getRuleId()).containsExactly("new-account-review");
    }

    @Test
    void aCardWithARecentFraudAlertIsBlocked() {
        givenDefaultRules();
        var alert = (io.streamhouse.domain.event.Alert) SampleEvents.oneOfEach().stream()
                .filter(e -> e instanceof io.streamhouse.domain.event.Alert).findFirst().orElseThrow();
        var onAlice = io.streamhouse.domain.event.Alert.newBuilder(alert)
                .setSubject(io.streamhouse.domain.event.AlertSubject.newBuilder().setKind(io.streamhouse.domain.event.SubjectKind.CARD)
                        .setId(Cards.ALICE).build())
                .setWindowEnd(Times.T0).build();
        driver.createInputTopic(Topics.FRAUD_ALERTS.name(), new StringSerializer(), serdes.valueSerde(Topics.FRAUD_ALERTS).serializer())
                .pipeInput(Cards.ALICE, onAlice);
        requests.pipeInput(Cards.ALICE, SampleEvents.transaction("flag-1", Cards.ALICE, "5", "EUR", Merchants.GROCER_ROTTERDAM,
                Times.T0.plus(Times.ONE_HOUR)));
        requests.pipeInput(Cards.BOB, SampleEvents.transaction("flag-2", Cards.BOB, "5", "EUR", Merchants.GROCER_ROTTERDAM,
                Times.T0.plus(Times.ONE_HOUR)));
        var outcomes = decisions.readKeyValuesToMap();
        assertThat(outcomes.get("flag-1").getOutcome()).isEqualTo(DecisionOutcome.BLOCK);
        assertThat(outcomes.get("flag-1").getReasons().get(0).getFacts()).containsEntry("alertType", "CARD_TESTING");
        assertThat(outcomes.get("flag-2").getOutcome()).as("another card is not flagged").isEqualTo(DecisionOutcome.ALLOW);
    }

    private io.streamhouse.domain.event.Alert fraudAlertOnAlice(String alertId, java.time.Instant windowEnd) {
        var alert = (io.streamhouse.domain.event.Alert) SampleEvents.oneOfEach().stream()
                .filter(e -> e instanceof io.streamhouse.domain.event.Alert).findFirst().orElseThrow();
        return io.streamhouse.domain.event.Alert.newBuilder(alert).setAlertId(alertId)
                .setSubject(io.streamhouse.domain.event.AlertSubject.newBuilder().setKind(io.streamhouse.domain.event.SubjectKind.CARD)
                        .setId(Cards.ALICE).build())
                .setWindowEnd(windowEnd).build();
    }

    private void alert(io.streamhouse.domain.event.Alert alert) {
        driver.createInputTopic(Topics.FRAUD_ALERTS.name(), new StringSerializer(), serdes.valueSerde(Topics.FRAUD_ALERTS).serializer())
                .pipeInput(alert.getSubject().getId(), alert);
    }

    /**
     * The CEP job writes an alert after the payments it is about, so live decides some of a flagged card's payments
     * before the alert is there, and a rebuild (whose global store holds every alert before any payment is decided)
     * would block them: each decision records how far it had read the card's alerts, and a rebuild given those
     * offsets decides every payment as live did.
     */
    @Test
    void aRebuildDecidesWithTheAlertsLiveHadReadWhenItDecided() {
        givenDefaultRules();
        var before = SampleEvents.transaction("seen-1", Cards.ALICE, "5", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0.plus(Times.ONE_HOUR));
        var after = SampleEvents.transaction("seen-2", Cards.ALICE, "6", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0.plus(Times.ONE_HOUR));
        requests.pipeInput(Cards.ALICE, before);
        alert(fraudAlertOnAlice("a-1", Times.T0));
        requests.pipeInput(Cards.ALICE, after);
        var live = decisions.readKeyValuesToMap();
        assertThat(live.get("seen-1").getOutcome()).as("decided before the alert was read").isEqualTo(DecisionOutcome.ALLOW);
        assertThat(live.get("seen-1").getAlertsSeen().getCardOffset()).isEqualTo(-1);
        assertThat(live.get("seen-2").getOutcome()).isEqualTo(DecisionOutcome.BLOCK);
        assertThat(live.get("seen-2").getAlertsSeen().getCardOffset()).isZero();

        DecisionTopology.AlertsSeenBy asLive = id -> live.get(id).getAlertsSeen();
        startWith(new DecisionTopology.Config(clock, io.streamhouse.plumbing.OutputTopics.LIVE, java.util.Map.of(), asLive));
        givenDefaultRules();
        alert(fraudAlertOnAlice("a-1", Times.T0));
        requests.pipeInput(Cards.ALICE, before);
        requests.pipeInput(Cards.ALICE, after);
        assertThat(decisions.readKeyValuesToMap()).as("the rebuild, given what live had read").isEqualTo(live);

        startWith(new DecisionTopology.Config(clock));
        givenDefaultRules();
        alert(fraudAlertOnAlice("a-1", Times.T0));
        requests.pipeInput(Cards.ALICE, before);
        assertThat(decisions.readValue().getOutcome()).as("every alert read first, as a rebuild without the offsets would")
                .isEqualTo(DecisionOutcome.BLOCK);
    }

    /** An alert written later about later payments does not hide the one this payment comes after. */
    @Test
    void aLaterAlertOnTheCardDoesNotHideTheOneBeforeThePayment() {
        givenDefaultRules();
        alert(fraudAlertOnAlice("a-early", Times.T0));
        alert(fraudAlertOnAlice("a-later", Times.T0.plus(Times.ONE_HOUR.multipliedBy(2))));
        requests.pipeInput(Cards.ALICE, SampleEvents.transaction("between", Cards.ALICE, "5", "EUR", Merchants.GROCER_ROTTERDAM,
                Times.T0.plus(Times.ONE_HOUR)));
        var d = decisions.readValue();
        assertThat(d.getOutcome()).isEqualTo(DecisionOutcome.BLOCK);
        assertThat(d.getReasons().get(0).getFacts()).containsEntry("alertId", "a-early");
        assertThat(d.getAlertsSeen().getCardOffset()).isEqualTo(1);
    }

    /**
     * A request decided twice (a retry, or the replay of a crashed task's input) may meet other rules the second time;
     * the decisions topic still only ever holds the first decision, byte for byte.
     */
    @Test
    void aRepeatedRequestIsAnsweredWithTheFirstDecisionEvenAfterTheRulesChanged() {
        givenDefaultRules();
        var rawDecisions = driver.createOutputTopic(Topics.TRANSACTION_DECISIONS.name(), new StringDeserializer(),
                Serdes.ByteArray().deserializer());
        requests.pipeInput(Cards.ALICE, payment("tx-r", "600"));
        RuleDefinition lowered = RuleDefinition.newBuilder(DefaultRules.definitions().get(0)).setVersion(2)
                .setParameters(Map.of("threshold", "500", "currency", "EUR")).build();
        rules.pipeInput(lowered.getRuleId(), lowered);
        requests.pipeInput(Cards.ALICE, payment("tx-r", "600"));
        requests.pipeInput(Cards.ALICE, payment("tx-other", "600"));

        var written = rawDecisions.readRecordsToList();
        assertThat(written).extracting(TestRecord::key).containsExactly("tx-r", "tx-r", "tx-other");
        assertThat(written.get(1).value()).as("the repeat's answer is the first decision's bytes").isEqualTo(written.get(0).value());
        assertThat(header(written.get(1), io.streamhouse.domain.decision.Decisions.REQUEST_FINGERPRINT_HEADER))
                .isEqualTo(header(written.get(0), io.streamhouse.domain.decision.Decisions.REQUEST_FINGERPRINT_HEADER))
                .isEqualTo(java.util.HexFormat.of().formatHex(io.streamhouse.domain.events.Fingerprints.of(payment("tx-r", "600"))));
        var decoder = serdes.valueSerde(Topics.TRANSACTION_DECISIONS).deserializer();
        assertThat(decoder.deserialize(Topics.TRANSACTION_DECISIONS.name(), written.get(1).value()).getOutcome())
                .as("decided again, it would be held under the lowered threshold").isEqualTo(DecisionOutcome.ALLOW);
        assertThat(decoder.deserialize(Topics.TRANSACTION_DECISIONS.name(), written.get(2).value()).getOutcome())
                .as("a new transaction meets the new rules").isEqualTo(DecisionOutcome.REVIEW);
        assertThat(deadLetters.isEmpty()).as("a repeat is not a conflict").isTrue();
        var store = driver.<String, io.streamhouse.domain.state.CardActivity>getKeyValueStore(DecisionTopology.CARD_ACTIVITY_STORE);
        assertThat(store.get(Cards.ALICE).getEntries()).as("counted once").hasSize(2);
    }

    /**
     * A reused transaction id with other content, on the same card or another (so in another partition of the
     * requests), is never decided again: the request goes to the requests' dead-letter topic with the reason, and the
     * first decision is written again for the caller waiting under that id.
     */
    @Test
    void aDifferentRequestUnderADecidedTransactionIdIsDeadLetteredAndAnsweredWithTheFirstDecision() {
        givenDefaultRules();
        var rawDecisions = driver.createOutputTopic(Topics.TRANSACTION_DECISIONS.name(), new StringDeserializer(),
                Serdes.ByteArray().deserializer());
        requests.pipeInput(Cards.ALICE, payment("tx-c", "10"));
        var larger = payment("tx-c", "1500.00");
        requests.pipeInput(Cards.ALICE, larger);
        var otherCard = SampleEvents.transaction("tx-c", Cards.BOB, "10", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0);
        requests.pipeInput(Cards.BOB, otherCard);

        var written = rawDecisions.readRecordsToList();
        assertThat(written).hasSize(3).allSatisfy(r -> {
            assertThat(r.key()).isEqualTo("tx-c");
            assertThat(r.value()).isEqualTo(written.get(0).value());
        });
        assertThat(serdes.valueSerde(Topics.TRANSACTION_DECISIONS).deserializer()
                .deserialize(Topics.TRANSACTION_DECISIONS.name(), written.get(0).value()).getOutcome()).isEqualTo(DecisionOutcome.ALLOW);
        var dead = deadLetters.readRecordsToList();
        assertThat(dead).hasSize(2);
        assertThat(header(dead.get(0), DeadLetterHeaders.REASON)).contains("tx-c").contains("already decided for a different request");
        assertThat(header(dead.get(0), DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo(Topics.TRANSACTION_REQUESTS.name());
        assertThat(header(dead.get(0), DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("1");
        var requestDecoder = serdes.valueSerde(Topics.TRANSACTION_REQUESTS).deserializer();
        assertThat(requestDecoder.deserialize(Topics.TRANSACTION_REQUESTS.name(), dead.get(0).value())).isEqualTo(larger);
        assertThat(requestDecoder.deserialize(Topics.TRANSACTION_REQUESTS.name(), dead.get(1).value()).getCardToken()).isEqualTo(Cards.BOB);
    }

    /**
     * An ingest instance that reads only its own replies names its partition on the request: the decision, its repeats
     * included, is copied there byte for byte with its fingerprint; the routing header is on neither copy; a request
     * without it (or with a header that is not a partition) is decided as always, with no copy; a replay's shadow
     * writes no copies.
     */
    @Test
    void aRequestThatNamesAReplyPartitionGetsACopyOfEachOfItsDecisionsThere() {
        givenDefaultRules();
        var rawDecisions = driver.createOutputTopic(Topics.TRANSACTION_DECISIONS.name(), new StringDeserializer(),
                Serdes.ByteArray().deserializer());
        var replies = driver.createOutputTopic(Topics.TRANSACTION_DECISION_REPLIES.name(), new StringDeserializer(),
                Serdes.ByteArray().deserializer());
        requests.pipeInput(withReplyPartition(Cards.ALICE, payment("tx-p", "10"), "3"));
        requests.pipeInput(Cards.ALICE, payment("tx-q", "10"));
        requests.pipeInput(withReplyPartition(Cards.ALICE, payment("tx-x", "10"), "three"));
        requests.pipeInput(withReplyPartition(Cards.ALICE, payment("tx-p", "10"), "5"));

        var written = rawDecisions.readRecordsToList();
        assertThat(written).extracting(TestRecord::key).containsExactly("tx-p", "tx-q", "tx-x", "tx-p");
        assertThat(written).allSatisfy(r -> assertThat(header(r, Decisions.REPLY_PARTITION_HEADER)).isNull());
        var copies = replies.readRecordsToList();
        assertThat(copies).extracting(TestRecord::key).containsExactly("tx-p", "tx-p");
        assertThat(copies).allSatisfy(r -> {
            assertThat(r.value()).isEqualTo(written.get(0).value());
            assertThat(header(r, Decisions.REQUEST_FINGERPRINT_HEADER)).isEqualTo(header(written.get(0), Decisions.REQUEST_FINGERPRINT_HEADER));
            assertThat(header(r, Decisions.REPLY_PARTITION_HEADER)).isNull();
        });
        assertThat(DecisionTopology.replyPartition(Topics.TRANSACTION_DECISION_REPLIES.name(), "tx-p",
                new FirstDecision.Out(new byte[0], FirstDecision.Out.Kind.REPLY, 5), 12)).contains(java.util.Set.of(5));
        assertThat(DecisionTopology.replyPartition(Topics.TRANSACTION_DECISION_REPLIES.name(), "tx-p",
                new FirstDecision.Out(new byte[0], FirstDecision.Out.Kind.REPLY, 12), 12)).as("no such partition").isEmpty();

        startWith(new DecisionTopology.Config(clock, new io.streamhouse.plumbing.OutputTopics("shadow-")));
        givenDefaultRules();
        var shadowDecisions = driver.createOutputTopic("shadow-" + Topics.TRANSACTION_DECISIONS.name(), new StringDeserializer(),
                Serdes.ByteArray().deserializer());
        replies = driver.createOutputTopic(Topics.TRANSACTION_DECISION_REPLIES.name(), new StringDeserializer(), Serdes.ByteArray().deserializer());
        var shadowReplies = driver.createOutputTopic("shadow-" + Topics.TRANSACTION_DECISION_REPLIES.name(), new StringDeserializer(),
                Serdes.ByteArray().deserializer());
        requests.pipeInput(withReplyPartition(Cards.ALICE, payment("tx-s", "10"), "3"));
        assertThat(shadowDecisions.readKeyValue().key).isEqualTo("tx-s");
        assertThat(replies.isEmpty()).isTrue();
        assertThat(shadowReplies.isEmpty()).isTrue();
    }

    private static TestRecord<String, TransactionAuthorizationRequested> withReplyPartition(String key,
            TransactionAuthorizationRequested request, String partition) {
        var headers = new org.apache.kafka.common.header.internals.RecordHeaders();
        headers.add(Decisions.REPLY_PARTITION_HEADER, partition.getBytes(StandardCharsets.US_ASCII));
        return new TestRecord<>(key, request, headers);
    }

    private static String header(TestRecord<String, byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
