package io.streamhouse.launcher;

import io.streamhouse.control.HealthCheck.Verdict;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.streamhouse.launcher.Canned.json;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Given the answers of a MiniCluster's REST API, expect the job's state, restarts and last cause in one line, and a
 * verdict that tells a crash loop from a running job whatever the child process's own state.
 */
class FlinkJobHealthTest {
    private static final String JOB = "4ef086d87a77456f0a5645d935d73ea0";
    /** Ten seconds after the loop's latest failure. */
    private static final Instant NOW = Instant.ofEpochMilli(1796432650000L);

    @Test
    void aJobRestartingInALoopIsFailingWithItsRestartsAndRootCause() throws Exception {
        FlinkJobHealth.Report report = FlinkJobHealth.report(JOB, json("flink-jobs-overview-restarting"),
                json("flink-job-exceptions-loop"), json("flink-job-restarts"), NOW);

        assertThat(report.state()).isEqualTo("RESTARTING");
        assertThat(report.restarts()).isEqualTo(23);
        assertThat(report.restartsLastMinute()).isEqualTo(3);
        assertThat(report.restartsInWindow()).isEqualTo(4);
        assertThat(report.verdict()).isEqualTo(Verdict.FAILING);
        assertThat(report.line()).startsWith("cep job failing: RESTARTING, 3 restarts in the last minute, 4 in the last 10 minutes (23 in all), "
                + "last cause: InvalidTimestampException: Timestamp 1796439840000 of message with offset 0 is out of range.");
    }

    @Test
    void theLoopStaysFailingWhileRunningBetweenTwoRestartsAndOnceTheBackoffSpacesThemOut() throws Exception {
        FlinkJobHealth.Report between = FlinkJobHealth.report(JOB, json("flink-jobs-overview-running"),
                json("flink-job-exceptions-loop"), json("flink-job-restarts"), NOW);
        assertThat(between.verdict()).as("running now, but it failed 4 times in 10 minutes").isEqualTo(Verdict.FAILING);

        FlinkJobHealth.Report later = FlinkJobHealth.report(JOB, json("flink-jobs-overview-running"),
                json("flink-job-exceptions-loop"), json("flink-job-restarts"), NOW.plus(Duration.ofMinutes(5)));
        assertThat(later.restartsLastMinute()).isZero();
        assertThat(later.verdict()).isEqualTo(Verdict.FAILING);
        assertThat(later.line()).contains("3 restarts in the last 10 minutes (23 in all)");

        FlinkJobHealth.Report quiet = FlinkJobHealth.report(JOB, json("flink-jobs-overview-running"),
                json("flink-job-exceptions-loop"), json("flink-job-restarts"), NOW.plus(Duration.ofMinutes(11)));
        assertThat(quiet.verdict()).as("no failure for 10 minutes").isEqualTo(Verdict.OK);
        assertThat(quiet.line()).startsWith("cep job: RUNNING, 23 restarts, last cause: InvalidTimestampException");
    }

    @Test
    void aRunningJobThatNeverFailedIsOk() throws Exception {
        FlinkJobHealth.Report report = FlinkJobHealth.report(JOB, json("flink-jobs-overview-running"),
                json("flink-job-exceptions-none"), "[]", NOW);

        assertThat(report.verdict()).isEqualTo(Verdict.OK);
        assertThat(report.line()).isEqualTo("cep job: RUNNING, 0 restarts");
    }

    @Test
    void theRestartCountIsAskedOnlyOfAJobWithAFailureInItsHistory() throws Exception {
        assertThat(FlinkJobHealth.hasFailures(json("flink-job-exceptions-none"))).isFalse();
        assertThat(FlinkJobHealth.hasFailures(json("flink-job-exceptions-loop"))).isTrue();
    }

    @Test
    void aJobTheClusterDoesNotKnowIsFailing() throws Exception {
        FlinkJobHealth.Report report = FlinkJobHealth.report("another-job", json("flink-jobs-overview-running"),
                json("flink-job-exceptions-none"), "[]", NOW);

        assertThat(report.verdict()).isEqualTo(Verdict.FAILING);
        assertThat(report.line()).startsWith("cep job failing: MISSING");
    }

    @Test
    void aJobMissingFromTheOverviewIsNotAskedForItsExceptionsAndReportsMissing() throws Exception {
        assertThat(FlinkJobHealth.listed(json("flink-jobs-overview-running"), JOB)).isTrue();
        assertThat(FlinkJobHealth.listed(json("flink-jobs-overview-running"), "another-job")).isFalse();

        FlinkJobHealth.Report report = FlinkJobHealth.report("another-job", json("flink-jobs-overview-running"), "{}", "[]", NOW);
        assertThat(report.line()).startsWith("cep job failing: MISSING, 0 restarts");
    }

    @Test
    void theCauseIsTheDeepestCausedByWithoutItsPackage() {
        assertThat(FlinkJobHealth.cause("java.lang.RuntimeException: outer\n\tat x.y(Z.java:1)\n"
                + "Caused by: java.io.IOException: middle\nCaused by: org.example.Deep$Error: the root\n\tat a.b(C.java:2)"))
                .isEqualTo("Deep$Error: the root");
        assertThat(FlinkJobHealth.cause("java.lang.IllegalStateException: only one line")).isEqualTo("IllegalStateException: only one line");
    }

    @Test
    void droppedCountersAreReadPerPatternAndTopicSummedOverSubtasks() throws Exception {
        assertThat(FlinkJobHealth.droppedMetricIds(json("flink-vertex-metrics-list")))
                .containsExactly("reconcile_cep-card-testing.topic.payments_transactions_requested.droppedBeyondRetention");

        List<FlinkJobHealth.Dropped> dropped = FlinkJobHealth.dropped(json("flink-vertex-metrics-dropped"));

        assertThat(dropped).containsExactly(
                new FlinkJobHealth.Dropped("cep-card-testing", "payments.transactions.requested", 12),
                new FlinkJobHealth.Dropped("cep-account-takeover", "shop.customers", 3),
                new FlinkJobHealth.Dropped("cep-account-takeover", "shop.orders", 0));
        assertThat(FlinkJobHealth.droppedLine(dropped)).isEqualTo("cep dropped beyond retention: "
                + "cep-account-takeover 3 (shop.customers), cep-card-testing 12 (payments.transactions.requested)");
        assertThat(FlinkJobHealth.droppedLine(List.of())).isEqualTo("cep dropped beyond retention: none");
    }
}
