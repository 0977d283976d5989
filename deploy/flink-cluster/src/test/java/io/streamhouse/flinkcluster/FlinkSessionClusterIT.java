package io.streamhouse.flinkcluster;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.SharedPlatform;
import io.streamhouse.supervisor.Supervisor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The CEP job as a production cluster runs it: the shaded jar uploaded to a JobManager started from Flink's own entry
 * point, run through the REST API with parallelism 2 on two TaskManagers, reading and writing the shared platform's
 * Kafka. One cluster for the class (its start is most of the cost).
 */
class FlinkSessionClusterIT {
    private static EmbeddedPlatform platform;
    private static FlinkSessionCluster cluster;
    private static CardTestsOnKafka kafka;

    /**
     * The cluster's JVMs start while the platform does: nothing in the cluster talks to the broker or the registry until
     * a job is submitted, and both starts are mostly child JVMs and processes booting.
     */
    @BeforeAll
    static void startTheCluster() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target"), "flink-cluster-it-");
        CompletableFuture<FlinkSessionCluster> starting = CompletableFuture.supplyAsync(() ->
                FlinkSessionCluster.start(FlinkClusterConfig.onFreePorts(dir, 2, 2), Map.of(), Supervisor.unsupervised()));
        try {
            platform = SharedPlatform.get();
            kafka = new CardTestsOnKafka(platform);
        } finally {
            try {
                cluster = starting.join(); // whatever the platform did, so that @AfterAll stops a cluster that started
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
        }
    }

    @AfterAll
    static void stopTheCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theJobSubmittedThroughRestRunsOnBothTaskManagersCommitsTheAlertOfACardTestAndStopsWithASavepoint() throws Exception {
        FlinkRestClient rest = cluster.rest();
        assertThat(rest.taskManagers()).containsExactly("taskmanager-1", "taskmanager-2");
        String group = "cep-cluster-it-" + UUID.randomUUID();
        kafka.startAtTheEnd(group);

        String job = cluster.submit(CardTestsOnKafka.JOB_JAR, kafka.submission(group), Duration.ofMinutes(3));
        try {
            assertThat(rest.placement(job)).as("one subtask of each operator per TaskManager")
                    .containsExactly("taskmanager-1", "taskmanager-2");
            String card = "tok_cluster_" + UUID.randomUUID();
            kafka.send(CardTestsOnKafka.cardTest(card, Instant.parse("2026-08-01T10:00:00Z")));

            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
                    assertThat(kafka.committedAlerts().stream().filter(a -> a.getSubject().getId().equals(card)).toList())
                            .singleElement().extracting(Alert::getMatchedEventIds)
                            .isEqualTo(CardTestsOnKafka.matchedIds(card)));
            assertThat(rest.checkpoints(job).completed()).as("checkpoints completed (the alert commits with one)")
                    .isPositive();
        } catch (AssertionError | RuntimeException e) {
            rest.cancel(job);
            throw e;
        }
        String trigger = rest.stopWithSavepoint(job, cluster.config().savepoints().toUri().toString());
        String savepoint = await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                .until(() -> rest.savepointStatus(job, trigger), java.util.Optional::isPresent).orElseThrow();
        assertThat(Path.of(java.net.URI.create(savepoint.startsWith("file:") ? savepoint : "file:" + savepoint))
                .resolve("_metadata")).as("the savepoint a restart or an upgrade starts from").isRegularFile();
        await().atMost(Duration.ofSeconds(60)).until(() -> rest.state(job).equals("FINISHED"));
    }
}
