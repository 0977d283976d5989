package io.streamhouse.drills;

import io.streamhouse.replay.Endpoints;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The pure choices of the cluster drills: which member to kill, when it counts as recovered, and the refusal. */
class ClusterTargetsTest {
    private static final List<String> ONE_OF_EACH = List.of("broker", "ingest", "api", "connect", "cep");
    private static final List<String> CLUSTER = List.of("broker", "broker-2", "broker-3", "flink-jobmanager", "flink-taskmanager-1",
            "flink-taskmanager-2", "connect", "connect-2", "ingest", "ingest-2", "api", "api-2");

    @Test
    void theBrokerLeadingTheMostDecisionsPartitionsIsKilledAsItsComponent() {
        BrokerLeaders leaders = new BrokerLeaders(Map.of(0, 2, 1, 3, 2, 2, 3, 1, 4, 2, 5, -1), Map.of());
        assertThat(leaders.busiestLeader()).isEqualTo(2);
        assertThat(BrokerLeaders.component(leaders.busiestLeader())).isEqualTo("broker-2");
        assertThat(BrokerLeaders.component(1)).isEqualTo("broker");
        // Of equals, the lowest node id, so a run can be repeated.
        assertThat(new BrokerLeaders(Map.of(0, 3, 1, 1, 2, 3, 3, 1), Map.of()).busiestLeader()).isEqualTo(1);
        assertThatThrownBy(() -> new BrokerLeaders(Map.of(0, -1), Map.of()).busiestLeader()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void leadersHaveMovedOnlyWhenEveryPartitionHasALeaderOtherThanTheKilledNode() {
        assertThat(new BrokerLeaders(Map.of(0, 1, 1, 3), Map.of()).movedOff(2)).isTrue();
        assertThat(new BrokerLeaders(Map.of(0, 1, 1, 2), Map.of()).movedOff(2)).isFalse();
        assertThat(new BrokerLeaders(Map.of(0, 1, 1, -1), Map.of()).movedOff(2)).as("a partition without a leader").isFalse();
        assertThat(new BrokerLeaders(Map.of(), Map.of()).movedOff(2)).isFalse();
    }

    @Test
    void theKilledNodeRejoinedOnceItIsInEveryIsr() {
        assertThat(new BrokerLeaders(Map.of(), Map.of(0, List.of(1, 2, 3), 1, List.of(3, 2))).inEveryIsr(2)).isTrue();
        assertThat(new BrokerLeaders(Map.of(), Map.of(0, List.of(1, 2, 3), 1, List.of(3, 1))).inEveryIsr(2)).isFalse();
    }

    @Test
    void theWorkerRunningTheLakeTaskIsFoundFromTheStatusAndItsComponentFromTheEndpoints() throws Exception {
        String status = """
                {"name":"lake","connector":{"state":"RUNNING","worker_id":"127.0.0.1:38083"},
                 "tasks":[{"id":0,"state":"RUNNING","worker_id":"127.0.0.1:38084"}],"type":"sink"}""";
        List<ConnectWorkers.Task> tasks = ConnectWorkers.tasks(status);
        assertThat(tasks).containsExactly(new ConnectWorkers.Task(0, "RUNNING", "127.0.0.1:38084"));
        Map<String, String> endpoints = new LinkedHashMap<>();
        endpoints.put("connect", "http://127.0.0.1:38083");
        endpoints.put("connect-2", "http://localhost:38084/");
        String worker = ConnectWorkers.busiestWorker(tasks);
        assertThat(ConnectWorkers.componentOf(worker, endpoints)).contains("connect-2");
        assertThat(ConnectWorkers.componentOf("127.0.0.1:9999", endpoints)).isEmpty();
        assertThat(ConnectWorkers.allRunning(tasks)).isTrue();
    }

    @Test
    void aTaskNotRunningIsNeitherChosenNorRecovered() throws Exception {
        List<ConnectWorkers.Task> tasks = ConnectWorkers.tasks("""
                {"tasks":[{"id":1,"state":"RUNNING","worker_id":"127.0.0.1:2"},{"id":0,"state":"UNASSIGNED","worker_id":"127.0.0.1:1"},
                          {"id":2,"state":"RUNNING","worker_id":"127.0.0.1:2"}]}""");
        assertThat(tasks).extracting(ConnectWorkers.Task::id).containsExactly(0, 1, 2);
        assertThat(ConnectWorkers.busiestWorker(tasks)).isEqualTo("127.0.0.1:2");
        assertThat(ConnectWorkers.allRunning(tasks)).isFalse();
        assertThatThrownBy(() -> ConnectWorkers.busiestWorker(List.of(new ConnectWorkers.Task(0, "FAILED", "127.0.0.1:1"))))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theTaskManagerKilledIsTheFirstRunningTheJob() {
        assertThat(TaskManagerTarget.componentToKill(Set.of("taskmanager-1", "taskmanager-2"))).isEqualTo("flink-taskmanager-1");
        assertThat(TaskManagerTarget.componentToKill(Set.of("taskmanager-2"))).isEqualTo("flink-taskmanager-2");
        assertThat(TaskManagerTarget.componentToKill(Set.of())).isEqualTo("flink-taskmanager-1");
    }

    @Test
    void theJobManagersEndpointGivesTheJobAndItsRestUrl() {
        FlinkJob job = FlinkJob.fromEndpoint("0123456789abcdef0123456789abcdef http://127.0.0.1:38081/");
        assertThat(job.jobId()).isEqualTo("0123456789abcdef0123456789abcdef");
        assertThat(job.rest()).hasToString("http://127.0.0.1:38081");
        assertThatThrownBy(() -> FlinkJob.fromEndpoint("http://127.0.0.1:38081")).isInstanceOf(Endpoints.EnvironmentException.class)
                .hasMessageContaining("<job id> <rest url>");
    }

    @Test
    void aJobManagerGivingOnlyItsRestUrlRunsOneJobThatHasNotEnded() throws Exception {
        assertThat(FlinkJob.activeJob("""
                {"jobs":[{"id":"aa","status":"CANCELED"},{"id":"bb","status":"RESTARTING"}]}""")).contains("bb");
        assertThat(FlinkJob.activeJob("""
                {"jobs":[{"id":"aa","status":"RUNNING"},{"id":"bb","status":"RUNNING"}]}""")).as("two jobs: which one?").isEmpty();
        assertThat(FlinkJob.activeJob("{\"jobs\":[]}")).isEmpty();
    }

    @Test
    void theJobRecoveredOnlyOnceItRestartedAndEverySubtaskRunsAgain() throws Exception {
        String checkpoints = """
                {"counts":{"completed":7,"restored":%d},"latest":{"completed":{"id":%d},"restored":%s}}""";
        String running = """
                {"state":"RUNNING","timestamps":{"RUNNING":100,"RESTARTING":%d},
                 "vertices":[{"parallelism":2,"tasks":{"RUNNING":2}},{"parallelism":2,"tasks":{"RUNNING":%d,"DEPLOYING":%d}}]}""";
        FlinkJob.State atKill = FlinkJob.state(running.formatted(0, 2, 0), checkpoints.formatted(0, 7, "null"));
        assertThat(atKill.allRunning()).isTrue();
        assertThat(atKill.latestCompleted()).isEqualTo(7L);
        assertThat(atKill.latestRestored()).isNull();
        // Right after the kill the JobManager still says RUNNING: not a recovery.
        assertThat(FlinkJob.recovered(atKill, atKill, 1_000)).isFalse();
        FlinkJob.State deploying = FlinkJob.state(running.formatted(1_500, 1, 1), checkpoints.formatted(1, 7, "{\"id\":7}"));
        assertThat(FlinkJob.recovered(atKill, deploying, 1_000)).isFalse();
        FlinkJob.State restored = FlinkJob.state(running.formatted(1_500, 2, 0), checkpoints.formatted(1, 7, "{\"id\":7}"));
        assertThat(FlinkJob.recovered(atKill, restored, 1_000)).isTrue();
        assertThat(restored.latestRestored()).isEqualTo(7L);
    }

    @Test
    void theRestoreMustBeFromTheLatestCheckpointAtTheKillOrANewerOne() {
        assertThat(FlinkRestoreCheck.judge(7L, 7L).failures()).isEmpty();
        assertThat(FlinkRestoreCheck.judge(7L, 8L).failures()).isEmpty();
        assertThat(FlinkRestoreCheck.judge(7L, 6L).failures()).singleElement().asString().contains("(7)", "from 6");
        assertThat(FlinkRestoreCheck.judge(7L, null).failures()).singleElement().asString().contains("from none");
        assertThat(FlinkRestoreCheck.judge(null, null).found().note()).contains("no checkpoint");
    }

    @Test
    void aStackThatIsNoClusterIsRefusedWithTheOptionThatStartsOne() {
        assertThatThrownBy(() -> ClusterShape.require(Scenario.KILL_BROKER_LEADER, ONE_OF_EACH))
                .isInstanceOf(Endpoints.EnvironmentException.class)
                .hasMessageStartingWith("kill-broker-leader needs ./streamhouse up --cluster (or --brokers 3): this stack runs one broker");
        assertThatThrownBy(() -> ClusterShape.require(Scenario.KILL_TASKMANAGER, ONE_OF_EACH))
                .hasMessageStartingWith("kill-taskmanager needs ./streamhouse up --cluster (or --task-managers 2): this stack runs the CEP job in one JVM");
        assertThatThrownBy(() -> ClusterShape.require(Scenario.KILL_TASKMANAGER, List.of("broker", "flink-jobmanager", "flink-taskmanager-1")))
                .hasMessageContaining("this stack runs one TaskManager");
        assertThatThrownBy(() -> ClusterShape.require(Scenario.KILL_CONNECT_WORKER, ONE_OF_EACH))
                .hasMessageStartingWith("kill-connect-worker needs ./streamhouse up --cluster (or --connect-workers 2): this stack runs one Connect worker");
        assertThatThrownBy(() -> ClusterShape.require(Scenario.KILL_CONNECT_WORKER, List.of("broker", "api")))
                .hasMessageContaining("this stack runs no Connect workers");
    }

    @Test
    void aClusterIsAcceptedAndTheSingleProcessScenariosAskNothingOfIt() {
        for (Scenario s : Scenario.values()) {
            assertThatCode(() -> ClusterShape.require(s, CLUSTER)).as(s.label).doesNotThrowAnyException();
            if (!s.onCluster()) {
                assertThatCode(() -> ClusterShape.require(s, ONE_OF_EACH)).as(s.label).doesNotThrowAnyException();
            }
        }
        assertThat(ClusterShape.brokers(CLUSTER)).isEqualTo(3);
        assertThat(ClusterShape.taskManagers(CLUSTER)).isEqualTo(2);
        assertThat(ClusterShape.connectWorkers(CLUSTER)).isEqualTo(2);
    }
}
