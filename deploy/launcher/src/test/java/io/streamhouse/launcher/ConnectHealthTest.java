package io.streamhouse.launcher;

import io.streamhouse.control.HealthCheck;
import io.streamhouse.control.HealthCheck.Verdict;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.streamhouse.launcher.Canned.json;
import static org.assertj.core.api.Assertions.assertThat;

/** Given a worker's {@code /connectors?expand=status}, expect one check per connector, a FAILED task failing it with its trace. */
class ConnectHealthTest {

    @Test
    void aFailedTaskInALiveWorkerFailsItsConnectorWithTheTracesFirstLineAndRootCause() throws Exception {
        List<HealthCheck> checks = ConnectHealth.checks(json("connect-status-lake-failed"));

        assertThat(checks).extracting(HealthCheck::name).containsExactly("connect lake", "connect shop-cdc");
        assertThat(checks.get(0).verdict()).isEqualTo(Verdict.FAILING);
        assertThat(checks.get(0).line()).isEqualTo("connect lake failing: task 0 FAILED: org.apache.kafka.connect.errors.ConnectException: "
                + "Exiting WorkerSinkTask due to unrecoverable exception. (root cause: NoSuchTableException: Table does not exist: streamhouse.nope)");
        assertThat(checks.get(1)).isEqualTo(new HealthCheck("connect shop-cdc", "connect", Verdict.OK,
                "connect shop-cdc: RUNNING, 1 of 1 task RUNNING"));
    }

    @Test
    void runningConnectorsAreOkAndAPausedOneIsDegraded() throws Exception {
        assertThat(ConnectHealth.checks(json("connect-status-running"))).extracting(HealthCheck::verdict)
                .containsExactly(Verdict.OK, Verdict.OK);

        List<HealthCheck> paused = ConnectHealth.checks(json("connect-status-running").replaceFirst("\"state\":\"RUNNING\"", "\"state\":\"PAUSED\""));
        assertThat(paused.get(1).verdict()).isEqualTo(Verdict.DEGRADED);
        assertThat(paused.get(1).line()).isEqualTo("connect shop-cdc degraded: connector PAUSED (PAUSED, 1 of 1 task RUNNING)");
    }
}
