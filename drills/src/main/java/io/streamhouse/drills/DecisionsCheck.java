package io.streamhouse.drills;

import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.replay.TopicReader;
import org.apache.kafka.common.serialization.Deserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** Every authorize has exactly one outcome on the decisions topic, and every answer equals it ({@link DrillChecks#check}). */
final class DecisionsCheck implements Check<DrillChecks.Result> {
    private final List<String> sent;
    private final Collection<DrillChecks.Answer> answers;
    private final Duration timeout;

    DecisionsCheck(List<String> sent, Collection<DrillChecks.Answer> answers, Duration timeout) {
        this.sent = sent;
        this.answers = answers;
        this.timeout = timeout;
    }

    @Override
    public CheckResult<DrillChecks.Result> run(CheckContext on) throws InterruptedException {
        Set<String> ids = new HashSet<>();
        answers.forEach(a -> ids.add(a.transactionId()));
        ids.addAll(sent);
        DrillChecks.Result checks = DrillChecks.check(sent, answers, awaitDecisions(on.reader(), on.serdes(), ids));
        return CheckResult.failedIf(!checks.passed(), checks, "decisions: " + checks.requestErrors()
                + " request errors (neither a decision nor a refusal), " + checks.lost() + " lost, " + checks.conflicting()
                + " conflicting, " + checks.answerMismatches() + " answers unlike the log");
    }

    /**
     * The decisions on the log, read again until every authorize answered 200 has one or the timeout (a missing
     * decision may still be on its way; the check then counts what is still missing as lost).
     */
    private Map<String, List<String>> awaitDecisions(TopicReader reader, TopicSerdes serdes, Set<String> ids) throws InterruptedException {
        long until = System.currentTimeMillis() + timeout.toMillis();
        Map<String, List<String>> decisions = decisions(reader, serdes, ids);
        while (DrillChecks.undecided(answers, decisions) > 0 && System.currentTimeMillis() < until) {
            TimeUnit.SECONDS.sleep(1); // polling interval of a bounded wait for the api's next commit
            decisions = decisions(reader, serdes, ids);
        }
        return decisions;
    }

    private static Map<String, List<String>> decisions(TopicReader reader, TopicSerdes serdes, Set<String> ids) {
        Deserializer<TransactionDecision> decoder = serdes.valueSerde(Topics.TRANSACTION_DECISIONS).deserializer();
        Map<String, List<String>> byId = new LinkedHashMap<>();
        reader.readAll(Topics.TRANSACTION_DECISIONS.name(), r -> {
            TransactionDecision d;
            try {
                d = decoder.deserialize(r.topic(), r.value());
            } catch (RuntimeException unreadable) {
                return;
            }
            if (ids.contains(d.getTransactionId())) {
                byId.computeIfAbsent(d.getTransactionId(), k -> new ArrayList<>()).add(d.getOutcome().name());
            }
        });
        return byId;
    }
}
