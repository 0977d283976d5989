package io.streamhouse.detection.cep;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the job's event time. Thresholds of the patterns are not here: they are data (rules topic).
 *
 * @param maxOutOfOrderness how far behind the newest event time of a partition an event may arrive and still count as
 *                          on time (the watermark's bound); later ones are late and reconciled
 * @param idleness          a partition with no records for this long stops holding the watermark back
 * @param watermarkPerEvent emit a watermark after every event instead of periodically: the same watermarks, earlier;
 *                          makes bounded test runs independent of wall-clock timing
 * @param reconcileLate     reconcile late facts after each CEP operator ({@link LateReconciler}); always on, but for
 *                          measuring what that costs ({@code CepBenchmark}); no command-line option turns it off
 * @param aligned           align the sources' watermarks ({@link EventTimeWatermarks#forEvents}); always on, but for
 *                          runs on sources that emit each topic in one ordered stream and cannot pause a split (the
 *                          tests' generator sources), where it only slows the run; no command-line option turns it off
 * @param settle            hold each source reader's watermark for {@link EventTimeWatermarks#SETTLE} (at most the
 *                          idleness) after its first event, until every partition has delivered a first batch; always
 *                          on, but for sources whose splits all emit from the start (the tests' generator sources)
 */
public record CepJobConfig(Duration maxOutOfOrderness, Duration idleness, boolean watermarkPerEvent,
                           boolean reconcileLate, boolean aligned, boolean settle) {

    public CepJobConfig(Duration maxOutOfOrderness, Duration idleness, boolean watermarkPerEvent) {
        this(maxOutOfOrderness, idleness, watermarkPerEvent, true, true, true);
    }

    public CepJobConfig {
        Objects.requireNonNull(maxOutOfOrderness, "maxOutOfOrderness");
        Objects.requireNonNull(idleness, "idleness");
        if (maxOutOfOrderness.isNegative() || idleness.isNegative() || idleness.isZero()) {
            throw new IllegalArgumentException("maxOutOfOrderness must not be negative and idleness must be positive");
        }
    }

    /** 30 s out of order (the generator's lateness bound), partitions idle after 10 s. */
    public static CepJobConfig defaults() {
        return new CepJobConfig(Duration.ofSeconds(30), Duration.ofSeconds(10), false);
    }

    public CepJobConfig withWatermarkPerEvent(boolean perEvent) {
        return new CepJobConfig(maxOutOfOrderness, idleness, perEvent, reconcileLate, aligned, settle);
    }

    /** Without the late-event reconciliation: only to measure what it costs. */
    CepJobConfig withoutLateReconciliation() {
        return new CepJobConfig(maxOutOfOrderness, idleness, watermarkPerEvent, false, aligned, settle);
    }

    /**
     * For sources that end (a replay's shadow on Kafka): no partition is taken for quiet before it has ended, and no
     * alignment; readers still settle (a shadow reads a backlog).
     */
    CepJobConfig forBoundedRun() {
        return new CepJobConfig(maxOutOfOrderness, Duration.ofDays(36_500), watermarkPerEvent, reconcileLate, false, settle);
    }

    /**
     * For in-memory sources that emit each topic in one ordered stream from the start and cannot pause a split: no
     * alignment (it only slows them) and no settling (every split emits at once; a settled run would have no late event).
     */
    CepJobConfig forInMemorySources() {
        return new CepJobConfig(maxOutOfOrderness, idleness, watermarkPerEvent, reconcileLate, false, false);
    }
}
