package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.state.CepFact;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link PatternMatcher} in Flink's operator test harness, driven the way the job drives it: events, as the facts
 * the pattern makes of them ({@link FactsOf}), with their event time, watermarks on the event input (the rules input
 * holds none back), rules on the broadcast input.
 */
final class MatcherHarness<E> implements AutoCloseable {
    /** The topic the harness's matcher names in its dead letters. */
    static final String TOPIC = "cep-test-events";

    private final SubjectPattern<E> pattern;
    private final TypeInformation<E> type;
    private final KeySelector<E, String> key;
    private KeyedBroadcastOperatorTestHarness<String, Tuple2<String, CepFact>, RuleDefinition, Alert> harness;
    private int taken;

    MatcherHarness(SubjectPattern<E> pattern, TypeInformation<E> type, KeySelector<E, String> key) throws Exception {
        this(pattern, type, key, null, new PatternMatcher(pattern, TOPIC));
    }

    /** The matcher as it was before its evaluation timers were coalesced ({@link PerFactTimerMatcher}). */
    static <E> MatcherHarness<E> perFactTimers(SubjectPattern<E> pattern, TypeInformation<E> type,
                                               KeySelector<E, String> key) throws Exception {
        return new MatcherHarness<>(pattern, type, key, null, new PerFactTimerMatcher(pattern));
    }

    private MatcherHarness(SubjectPattern<E> pattern, TypeInformation<E> type, KeySelector<E, String> key,
                           OperatorSubtaskState restoreFrom,
                           KeyedBroadcastProcessFunction<String, Tuple2<String, CepFact>, RuleDefinition, Alert> matcher)
            throws Exception {
        this.pattern = pattern;
        this.type = type;
        this.key = key;
        KeySelector<Tuple2<String, CepFact>, String> subject = t -> t.f0;
        if (restoreFrom == null) {
            harness = ProcessFunctionTestHarnesses.forKeyedBroadcastProcessFunction(matcher, subject,
                    Types.STRING, PatternMatcher.RULES);
        } else {
            harness = new KeyedBroadcastOperatorTestHarness<>(
                    new org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator<>(
                            matcher, List.of(PatternMatcher.RULES)),
                    subject, Types.STRING, 1, 1, 0);
            harness.setup();
            harness.initializeState(restoreFrom);
            harness.open();
        }
        harness.processBroadcastWatermark(Long.MAX_VALUE);
    }

    /** The event as the job delivers it to the matcher: its fact, if the pattern has one, keyed by subject. */
    MatcherHarness<E> send(E event) throws Exception {
        Envelope envelope = pattern.envelope(event);
        var fact = pattern.factOf(event);
        if (fact.isPresent()) {
            harness.processElement(Tuple2.of(key.getKey(event), fact.get()), envelope.getOccurredAt().toEpochMilli());
        }
        return this;
    }

    MatcherHarness<E> watermark(Instant at) throws Exception {
        harness.processWatermark(at.toEpochMilli());
        return this;
    }

    MatcherHarness<E> rule(RuleDefinition rule) throws Exception {
        harness.processBroadcastElement(rule, 0L);
        return this;
    }

    /** Alerts emitted since the last call. */
    List<Alert> newAlerts() {
        List<Alert> all = harness.extractOutputValues();
        List<Alert> fresh = new ArrayList<>(all.subList(taken, all.size()));
        taken = all.size();
        return fresh;
    }

    /** Everything the matcher sent to its dead letters so far. */
    List<DeadLetter> deadLetters() {
        var out = harness.getSideOutput(PatternMatcher.DEAD_LETTERS);
        return out == null ? List.of() : out.stream().map(r -> r.getValue()).toList();
    }

    int keyedStateEntries() {
        var backend = ((org.apache.flink.streaming.api.operators.AbstractStreamOperator<?>) harness.getOperator())
                .getKeyedStateBackend();
        return ((org.apache.flink.runtime.state.heap.HeapKeyedStateBackend<?>) backend).numKeyValueStateEntries();
    }

    int eventTimeTimers() {
        return harness.numEventTimeTimers();
    }

    /**
     * Takes a snapshot, closes this operator and returns a new one restored from it (as after a failure). The new one
     * is always a {@link PatternMatcher}: from a {@link #perFactTimers} harness, this is an upgrade from a savepoint.
     */
    MatcherHarness<E> restartFromSnapshot() throws Exception {
        OperatorSubtaskState snapshot = harness.snapshot(1L, 1L);
        harness.close();
        return new MatcherHarness<>(pattern, type, key, snapshot, new PatternMatcher(pattern, TOPIC));
    }

    @Override
    public void close() throws Exception {
        harness.close();
    }
}
