package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.state.StampedFact;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.streamhouse.detection.cep.CepEvents.scan;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The step that gives the parcel patterns a deadline to match: given out-for-delivery scans, when the watermark passes
 * a scan's deadline ({@code promisedBy + grace}), expect its deadline fact then (not before), stamped with the scan's
 * thresholds, and no timer or state left; a scan that went out after its deadline gets its fact at its own time, and
 * a scan behind the watermark arms nothing.
 */
class ParcelDeadlinesTest {
    private static final PatternSettings V1 = PatternSettings.defaults();
    private static final Instant PROMISED_BY = T0.plus(Duration.ofHours(1));
    private static final long DEADLINE = PROMISED_BY.plus(V1.parcelSla().grace()).toEpochMilli();
    private final ParcelSlaPattern pattern = new ParcelSlaPattern();
    private KeyedOneInputStreamOperatorTestHarness<String, StampedFact, StampedFact> harness;

    @BeforeEach
    void open() throws Exception {
        harness = ProcessFunctionTestHarnesses.forKeyedProcessFunction(new ParcelDeadlines(), StampedFact::getSubject,
                Types.STRING);
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    @Test
    void theDeadlineFactComesWhenTheWatermarkPassesTheDeadlineAndLeavesNothingBehind() throws Exception {
        StampedFact out = stamped("p1-out", "p1", PROMISED_BY, T0);
        harness.processElement(out, T0.toEpochMilli());
        assertThat(harness.extractOutputValues()).as("the scan passes on").containsExactly(out);
        assertThat(harness.numEventTimeTimers()).isEqualTo(1);

        harness.processWatermark(new Watermark(DEADLINE));
        assertThat(harness.extractOutputValues()).as("a delivery at the deadline is in time: nothing yet").hasSize(1);

        harness.processWatermark(new Watermark(DEADLINE + 1));
        List<StreamRecord<? extends StampedFact>> records = harness.extractOutputStreamRecords();
        assertThat(records).hasSize(2);
        StreamRecord<? extends StampedFact> deadline = records.get(1);
        assertThat(deadline.getTimestamp()).isEqualTo(DEADLINE + 1);
        assertThat(deadline.getValue().getFact().getKind()).isEqualTo(ParcelDeadlines.KIND);
        assertThat(deadline.getValue().getFact().getOccurredAtMs()).isEqualTo(DEADLINE + 1);
        assertThat(deadline.getValue().getThresholds()).isEqualTo(out.getThresholds());
        assertThat(ParcelDeadlines.isDeadlineOf(deadline.getValue(), out)).isTrue();
        assertThat(harness.numEventTimeTimers()).isZero();
        assertThat(harness.numKeyedStateEntries()).isZero();
    }

    @Test
    void aScanThatWentOutAfterItsDeadlineGetsItsFactAtItsOwnTime() throws Exception {
        Instant sentOut = Instant.ofEpochMilli(DEADLINE).plus(Duration.ofHours(1));
        harness.processElement(stamped("p2-out", "p2", PROMISED_BY, sentOut), sentOut.toEpochMilli());
        harness.processWatermark(new Watermark(sentOut.toEpochMilli()));
        assertThat(harness.extractOutputValues()).hasSize(2).last()
                .satisfies(f -> assertThat(f.getFact().getOccurredAtMs()).isEqualTo(sentOut.toEpochMilli()));
    }

    @Test
    void aScanBehindTheWatermarkArmsNothing() throws Exception {
        harness.processWatermark(new Watermark(T0.toEpochMilli()));
        harness.processElement(stamped("p3-out", "p3", PROMISED_BY, T0), T0.toEpochMilli());
        assertThat(harness.numEventTimeTimers()).isZero();
        assertThat(harness.numKeyedStateEntries()).isZero();
    }

    private StampedFact stamped(String id, String parcel, Instant promisedBy, Instant at) {
        return new StampedFact(parcel, pattern.factOf(scan(id, parcel, ParcelStatus.OUT_FOR_DELIVERY, promisedBy, at))
                .orElseThrow(), Thresholds.of(V1, pattern.kind()));
    }
}
