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

    @Test
    void aFailedConnectorIsRestartedWithItsFailedTasksOnly() throws Exception {
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        List<String> requests = new java.util.concurrent.CopyOnWriteArrayList<>();
        server.createContext("/connectors/", exchange -> {
            requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
            exchange.sendResponseHeaders(202, -1);
            exchange.close();
        });
        server.start();
        try {
            ConnectHealth worker = new ConnectHealth(java.net.http.HttpClient.newHttpClient(),
                    java.net.URI.create("http://127.0.0.1:" + server.getAddress().getPort()));

            assertThat(worker.restartFailed("lake")).isTrue();
            assertThat(requests).containsExactly("POST /connectors/lake/restart?includeTasks=true&onlyFailed=true");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void restartsInARowWaitLongerEachTimeUpToTenMinutes() {
        assertThat(ConnectHealth.restartBackoff(1)).hasSeconds(30);
        assertThat(ConnectHealth.restartBackoff(2)).hasSeconds(60);
        assertThat(ConnectHealth.restartBackoff(4)).hasSeconds(240);
        assertThat(ConnectHealth.restartBackoff(5)).hasSeconds(480);
        assertThat(ConnectHealth.restartBackoff(6)).hasSeconds(600);
        assertThat(ConnectHealth.restartBackoff(40)).hasSeconds(600);
    }
}
