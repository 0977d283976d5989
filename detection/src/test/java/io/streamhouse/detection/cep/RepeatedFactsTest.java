package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.state.StampedFact;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static io.streamhouse.detection.cep.CepEvents.payment;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The step before each CEP operator that drops a repeated event id: given a card's payments, one of them twice, expect
 * each passed on once (another event at the same millisecond too), the subject's ids gone once the watermark passes
 * their time (no state, no timer left), and a fact behind the watermark passed on unrecorded.
 */
class RepeatedFactsTest {
    private final CardTestingPattern pattern = new CardTestingPattern();
    private KeyedOneInputStreamOperatorTestHarness<String, StampedFact, StampedFact> harness;

    @BeforeEach
    void open() throws Exception {
        harness = ProcessFunctionTestHarnesses.forKeyedProcessFunction(new RepeatedFacts(), StampedFact::getSubject,
                Types.STRING);
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    @Test
    void aRepeatedEventIdPassesOnceAndNothingIsKeptOnceTheWatermarkPassesIt() throws Exception {
        StampedFact s1 = stamped("s1", T0);
        StampedFact s2 = stamped("s2", T0);
        harness.processElement(s1, T0.toEpochMilli());
        harness.processElement(s1, T0.toEpochMilli());
        harness.processElement(s2, T0.toEpochMilli());
        harness.processElement(s1, T0.toEpochMilli());
        assertThat(harness.extractOutputValues()).as("another event at the same millisecond is not a repeat")
                .containsExactly(s1, s2);
        assertThat(harness.numEventTimeTimers()).isEqualTo(1);

        harness.processWatermark(new Watermark(T0.toEpochMilli()));
        assertThat(harness.numEventTimeTimers()).isZero();
        assertThat(harness.numKeyedStateEntries()).isZero();
    }

    @Test
    void aFactBehindTheWatermarkPassesOnUnrecorded() throws Exception {
        harness.processWatermark(new Watermark(T0.toEpochMilli()));
        StampedFact late = stamped("late", T0);
        harness.processElement(late, T0.toEpochMilli());
        harness.processElement(late, T0.toEpochMilli());
        assertThat(harness.extractOutputValues()).as("the CEP operator drops both as late; the reconciliation counts one")
                .containsExactly(late, late);
        assertThat(harness.numEventTimeTimers()).isZero();
        assertThat(harness.numKeyedStateEntries()).isZero();
    }

    private StampedFact stamped(String id, Instant at) {
        return new StampedFact("card-1", pattern.factOf(payment(id, "card-1", "1.00", at)).orElseThrow(),
                Thresholds.of(PatternSettings.defaults(), pattern.kind()));
    }
}
