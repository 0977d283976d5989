package io.streamhouse.detection.decision;

import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.ReviewOutcomes;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.ReviewOutcome;
import io.streamhouse.domain.event.ReviewOutcomeRecorded;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.DeadLetterHeaders;
import io.streamhouse.domain.topic.TopicSerdes;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The point of action: given a payment held for REVIEW, when a reviewer's verdict arrives on the reviews topic,
 * expect the card's next payment decided accordingly — BLOCKed naming the review after a confirmed fraud, decided
 * as before after a legitimate one.
 */
class ReviewOutcomeRoutingTest {
    private final InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();
    private final TopicSerdes serdes = new RegistryTopicSerdes(registry);
    private TopologyTestDriver driver;
    private TestInputTopic<String, TransactionAuthorizationRequested> requests;
    private TestInputTopic<String, ReviewOutcomeRecorded> reviews;
    private TestOutputTopic<String, TransactionDecision> decisions;
    private TestOutputTopic<String, Alert> fraudAlerts;

    @BeforeEach
    void start() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "review-routing-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        driver = new TopologyTestDriver(DecisionTopology.build(
                new DecisionTopology.Config(Clock.fixed(Times.T0, ZoneOffset.UTC)), serdes), props);
        TestInputTopic<String, RuleDefinition> rules = driver.createInputTopic(Topics.RULES.name(), new StringSerializer(),
                serdes.valueSerde(Topics.RULES).serializer());
        DefaultRules.definitions().forEach(d -> rules.pipeInput(d.getRuleId(), d));
        requests = driver.createInputTopic(Topics.TRANSACTION_REQUESTS.name(), new StringSerializer(),
                serdes.valueSerde(Topics.TRANSACTION_REQUESTS).serializer());
        reviews = driver.createInputTopic(Topics.REVIEW_OUTCOMES.name(), new StringSerializer(),
                serdes.valueSerde(Topics.REVIEW_OUTCOMES).serializer());
        decisions = driver.createOutputTopic(Topics.TRANSACTION_DECISIONS.name(), new StringDeserializer(),
                serdes.valueSerde(Topics.TRANSACTION_DECISIONS).deserializer());
        fraudAlerts = driver.createOutputTopic(Topics.FRAUD_ALERTS.name(), new StringDeserializer(),
                serdes.valueSerde(Topics.FRAUD_ALERTS).deserializer());
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    private void pay(String id, String amount, Instant at) {
        requests.pipeInput(Cards.ALICE, SampleEvents.transaction(id, Cards.ALICE, amount, "EUR", Merchants.GROCER_ROTTERDAM, at));
    }

    private TransactionDecision givenAPaymentHeldForReview() {
        pay("tx-held", "1500.00", Times.T0);
        TransactionDecision held = decisions.readValue();
        assertThat(held.getOutcome()).isEqualTo(DecisionOutcome.REVIEW);
        return held;
    }

    @Test
    void aConfirmedFraudBlocksTheCardsNextPaymentNamingTheReview() {
        givenAPaymentHeldForReview();

        reviews.pipeInput(Cards.ALICE, SampleEvents.reviewOutcome("rev-fraud", "tx-held", Cards.ALICE,
                ReviewOutcome.CONFIRMED_FRAUD, Times.T0.plusSeconds(300)));
        pay("tx-next", "5", Times.T0.plusSeconds(600));

        Alert flag = fraudAlerts.readValue();
        assertThat(flag.getPatternId()).isEqualTo(ReviewOutcomes.PATTERN_ID);
        assertThat(flag.getSubject().getId()).isEqualTo(Cards.ALICE);
        TransactionDecision next = decisions.readValue();
        assertThat(next.getTransactionId()).isEqualTo("tx-next");
        assertThat(next.getOutcome()).isEqualTo(DecisionOutcome.BLOCK);
        assertThat(next.getReasons()).anySatisfy(r -> {
            assertThat(r.getRuleId()).isEqualTo("flagged-subject-block");
            assertThat(r.getMessage()).contains("fraud confirmed by agent-7 reviewing transaction tx-held");
            assertThat(r.getFacts()).containsEntry("alertId", "review-rev-fraud").containsEntry("transactions", "tx-held");
        });
    }

    @Test
    void aLegitimateOutcomeIsRecordedWithoutBlocking() {
        givenAPaymentHeldForReview();

        reviews.pipeInput(Cards.ALICE, SampleEvents.reviewOutcome("rev-ok", "tx-held", Cards.ALICE,
                ReviewOutcome.LEGITIMATE, Times.T0.plusSeconds(300)));
        pay("tx-next", "5", Times.T0.plusSeconds(600));

        assertThat(fraudAlerts.isEmpty()).isTrue();
        TransactionDecision next = decisions.readValue();
        assertThat(next.getOutcome()).isEqualTo(DecisionOutcome.ALLOW);
        assertThat(next.getReasons()).noneSatisfy(r -> assertThat(r.getRuleId()).isEqualTo("flagged-subject-block"));
    }

    @Test
    void anotherCardIsNotFlaggedByAReviewOfThisOne() {
        givenAPaymentHeldForReview();
        reviews.pipeInput(Cards.ALICE, SampleEvents.reviewOutcome("rev-fraud", "tx-held", Cards.ALICE,
                ReviewOutcome.CONFIRMED_FRAUD, Times.T0.plusSeconds(300)));
        requests.pipeInput(Cards.BOB, SampleEvents.transaction("tx-bob", Cards.BOB, "5", "EUR", Merchants.GROCER_ROTTERDAM,
                Times.T0.plusSeconds(600)));
        assertThat(decisions.readValue().getOutcome()).isEqualTo(DecisionOutcome.ALLOW);
    }

    @Test
    void anUnreadableOrMiskeyedReviewIsDeadLetteredAndTheNextIsStillApplied() {
        givenAPaymentHeldForReview();
        var raw = driver.createInputTopic(Topics.REVIEW_OUTCOMES.name(), new StringSerializer(), Serdes.ByteArray().serializer());
        raw.pipeInput(Cards.ALICE, "not avro".getBytes(StandardCharsets.UTF_8));
        reviews.pipeInput("tx-held", SampleEvents.reviewOutcome("rev-miskeyed", "tx-held", Cards.ALICE,
                ReviewOutcome.CONFIRMED_FRAUD, Times.T0.plusSeconds(200)));
        reviews.pipeInput(Cards.ALICE, SampleEvents.reviewOutcome("rev-fraud", "tx-held", Cards.ALICE,
                ReviewOutcome.CONFIRMED_FRAUD, Times.T0.plusSeconds(300)));

        var dead = driver.createOutputTopic(Topics.deadLetterOf(Topics.REVIEW_OUTCOMES).name(), new StringDeserializer(),
                Serdes.ByteArray().deserializer()).readRecordsToList();
        assertThat(dead).hasSize(2);
        assertThat(new String(dead.get(0).headers().lastHeader(DeadLetterHeaders.REASON).value(), StandardCharsets.UTF_8))
                .contains("magic byte");
        assertThat(new String(dead.get(1).headers().lastHeader(DeadLetterHeaders.REASON).value(), StandardCharsets.UTF_8))
                .contains("not the event's aggregate id");
        assertThat(fraudAlerts.readValuesToList()).extracting(Alert::getAlertId).containsExactly("review-rev-fraud");
    }
}
