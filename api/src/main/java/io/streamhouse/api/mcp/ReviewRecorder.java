package io.streamhouse.api.mcp;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.domain.pii.CardNumbers;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.api.decisions.DecisionQueries;
import io.streamhouse.api.rules.RuleBook;
import io.streamhouse.domain.decision.FlaggedSubjectRule;
import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.ReviewOutcome;
import io.streamhouse.domain.event.ReviewOutcomeRecorded;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Records a reviewer's verdict on a payment held for REVIEW as a {@link ReviewOutcomeRecorded} event on
 * {@code payments.transactions.reviews}, keyed by the payment's card token, acknowledged by the broker (acks=all,
 * idempotent producer). Refused, with the reason, unless the transaction has a decision and that decision was REVIEW.
 * <p>
 * The event id is derived from the decision, the outcome and the reviewer, so an agent retrying the same call writes
 * an event with the same id (downstream, the fraud flag it causes has the same id too). The event time is this
 * app's clock: the moment the verdict was given.
 */
@ApplicationScoped
public class ReviewRecorder {
    static final int MAX_REVIEWER = 100;
    static final int MAX_NOTE = 1_000;
    /** The envelope source of a verdict given through the MCP tool. */
    public static final String SOURCE = "api-mcp";
    /** The envelope source of a verdict given through {@code POST /v1/transactions/{id}/review}. */
    public static final String HTTP_SOURCE = "api-http";

    private final DecisionQueries decisions;
    private final RuleBook rules;
    private final Clock clock;
    private final KafkaProducer<String, ReviewOutcomeRecorded> producer;

    public ReviewRecorder(DecisionQueries decisions, RuleBook rules, Clock clock, ApiConfig config, TopicSerdes serdes) {
        this.decisions = decisions;
        this.rules = rules;
        this.clock = clock;
        this.producer = new KafkaProducer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.API).producer(
                config.kafka().bootstrapServers(), Map.<String, Object>of(
                ProducerConfig.CLIENT_ID_CONFIG, "streamhouse-api-reviews",
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000)),
                new StringSerializer(), serdes.valueSerde(Topics.REVIEW_OUTCOMES).serializer());
    }

    public record Recorded(String transactionId, String outcome, String reviewer, String eventId, String cardToken,
                           String topic, int partition, long offset, Instant recordedAt, String effect) {
    }

    /** Validates, publishes and returns where the event landed; a {@link ToolResults.Refusal} says why not. */
    public Recorded record(String transactionId, String outcomeText, String reviewer, String note) {
        return record(transactionId, outcomeText, reviewer, note, SOURCE);
    }

    /** As {@link #record(String, String, String, String)}, naming the event's source (the tool or the HTTP route). */
    public Recorded record(String transactionId, String outcomeText, String reviewer, String note, String source) {
        ToolResults.requireId("transactionId", transactionId);
        ReviewOutcome outcome = parseOutcome(outcomeText);
        if (reviewer == null || reviewer.isBlank()) {
            throw new ToolResults.Refusal(ToolResults.Refusal.Kind.INVALID, "reviewer", "reviewer is required: the name of the person or agent giving the verdict");
        }
        if (reviewer.length() > MAX_REVIEWER) {
            throw new ToolResults.Refusal(ToolResults.Refusal.Kind.INVALID, "reviewer", "reviewer is longer than " + MAX_REVIEWER + " characters");
        }
        if (note != null && note.length() > MAX_NOTE) {
            throw new ToolResults.Refusal(ToolResults.Refusal.Kind.INVALID, "note", "note is longer than " + MAX_NOTE + " characters");
        }
        TransactionDecision decision = decisions.decision(transactionId).orElseThrow(() -> new ToolResults.Refusal(ToolResults.Refusal.Kind.NOT_FOUND, null,
                "no decision is recorded for transaction " + transactionId + ": only a payment held for REVIEW takes a review outcome"));
        if (decision.getOutcome() != DecisionOutcome.REVIEW) {
            throw new ToolResults.Refusal(ToolResults.Refusal.Kind.CONFLICT, null, "transaction " + transactionId + " was decided " + decision.getOutcome()
                    + ", not REVIEW: only a payment held for review takes a review outcome");
        }
        String decisionEventId = decision.getEnvelope().getEventId();
        String eventId = Envelopes.derivedEventId("review-outcome", decisionEventId + "|" + outcome + "|" + reviewer.trim());
        Instant now = clock.instant();
        ReviewOutcomeRecorded event = ReviewOutcomeRecorded.newBuilder()
                .setEnvelope(Envelopes.create(eventId, decision.getCardToken(), now, now, source,
                        EventTypes.versionOf(ReviewOutcomeRecorded.class), decisionEventId))
                .setTransactionId(transactionId)
                .setCardToken(decision.getCardToken())
                .setCustomerId(decision.getCustomerId())
                .setOutcome(outcome)
                .setReviewer(CardNumbers.mask(reviewer.trim()))
                .setNote(note == null || note.isBlank() ? null : CardNumbers.mask(note.trim()))
                .setDecisionEventId(decisionEventId)
                .build();
        RecordMetadata written = publish(event);
        return new Recorded(transactionId, outcome.name(), event.getReviewer(), eventId, decision.getCardToken(),
                written.topic(), written.partition(), written.offset(), now, effectOf(outcome, decision.getCardToken()));
    }

    private static ReviewOutcome parseOutcome(String text) {
        String allowed = Arrays.stream(ReviewOutcome.values()).map(Enum::name).collect(Collectors.joining(" | "));
        if (text == null || text.isBlank()) {
            throw new ToolResults.Refusal(ToolResults.Refusal.Kind.INVALID, "outcome", "outcome is required: " + allowed);
        }
        try {
            return ReviewOutcome.valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ToolResults.Refusal(ToolResults.Refusal.Kind.INVALID, "outcome", "outcome '" + text + "' is not one of " + allowed);
        }
    }

    /** What the verdict will change, as the rules in force say: an agent should know whether its action bites. */
    private String effectOf(ReviewOutcome outcome, String card) {
        if (outcome == ReviewOutcome.LEGITIMATE) {
            return "recorded; no decision changes (the payment stays as decided, the card is not flagged)";
        }
        List<RuleDefinition> flagging = rules.current().values().stream()
                .filter(r -> FlaggedSubjectRule.KIND.equals(r.getKind()) && r.getEnabled()).toList();
        if (flagging.isEmpty()) {
            return "card " + card + " is flagged with a confirmed-fraud alert, but no enabled " + FlaggedSubjectRule.KIND
                    + " rule uses it now: nothing is blocked until one is enabled";
        }
        return "card " + card + " is flagged with a confirmed-fraud alert (alerts.fraud, pattern review-outcome): its next "
                + "payments are decided " + flagging.stream().map(r -> r.getRuleId() + " v" + r.getVersion() + " → "
                + r.getOutcome() + " within " + r.getParameters().getOrDefault("within", "?")).collect(Collectors.joining(", "))
                + " of now";
    }

    private RecordMetadata publish(ReviewOutcomeRecorded event) {
        try {
            return producer.send(new ProducerRecord<>(Topics.REVIEW_OUTCOMES.name(), event.getCardToken(), event))
                    .get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolResults.Refusal(ToolResults.Refusal.Kind.UNAVAILABLE, null, "interrupted while recording the review of " + event.getTransactionId()
                    + "; it may or may not be recorded: retrying is safe (same event id)");
        } catch (ExecutionException | TimeoutException | org.apache.kafka.common.KafkaException e) {
            throw new ToolResults.Refusal(ToolResults.Refusal.Kind.UNAVAILABLE, null, "could not record the review of " + event.getTransactionId() + " on "
                    + Topics.REVIEW_OUTCOMES.name() + ": " + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage())
                    + "; retrying is safe (same event id)");
        }
    }

    @PreDestroy
    void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
