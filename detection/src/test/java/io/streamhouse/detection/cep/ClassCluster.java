package io.streamhouse.detection.cep;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * One MiniCluster for an integration test class (the house rule: one per class, every job of the class submitted to
 * it), with an in-memory metric reporter, so a test can wait on what a job's Kafka sources emitted and on the job's
 * completed checkpoints. Waiting on the offsets the source commits to its group instead costs about 10 s each time: the
 * source's consumer commits between polls, and on a topic with nothing more to read a poll waits out its 10 s.
 * Register {@link #extension()} in the class with {@code @RegisterExtension}, build jobs with
 * {@link KafkaTestIo#onTheClassCluster} and call {@link #cancelLeftovers} after each test.
 */
final class ClassCluster {
    private final InMemoryReporter metrics = InMemoryReporter.create();

    /**
     * Slots for two jobs of the tests' parallelism (2), so a job started while the one before it is still cancelling
     * does not wait for its slots, as it did not with a cluster of its own.
     */
    MiniClusterExtension extension() {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setConfiguration(metrics.addToConfiguration(new Configuration()))
                .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());
    }

    /**
     * Until a checkpoint of the job holds every record between {@code from} and {@code to} (end offsets taken before
     * and after the test wrote them): the job's sources have emitted them, and a checkpoint begun after that has
     * completed. What the group's committed offsets would show, without the wait for the commit. A Kafka source sets a
     * partition's {@code currentOffset} gauge in the task thread, in the same step that emits the record; checkpoints
     * do not overlap, so the second to complete after that began after it (and all the job's tasks were running, which
     * a stop with savepoint needs too).
     */
    void awaitCheckpointed(JobClient job, Map<TopicPartition, Long> from, Map<TopicPartition, Long> to) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            Map<String, Metric> byId = metricsOf(job);
            return to.entrySet().stream().filter(e -> e.getValue() > from.getOrDefault(e.getKey(), 0L))
                    .allMatch(e -> currentOffset(byId, e.getKey()).orElse(-1) >= e.getValue() - 1);
        });
        long emitted = completedCheckpoints(job);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> completedCheckpoints(job) >= emitted + 2);
    }

    /**
     * Cancels what a failed test left running on the cluster, so that the next test's jobs get their slots (with a
     * cluster per job, a leftover held only its own).
     */
    static void cancelLeftovers(MiniCluster cluster) throws Exception {
        for (JobStatusMessage job : cluster.listJobs().get(30, TimeUnit.SECONDS)) {
            if (!job.getJobState().isGloballyTerminalState()) {
                cluster.cancelJob(job.getJobId()).get(30, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * The job's metrics by identifier (scope and name). Not {@link InMemoryReporter#getMetricsByIdentifiers}, which
     * refuses two operators of one name (the job has several), as the last of them wins here.
     */
    private Map<String, Metric> metricsOf(JobClient job) {
        String id = job.getJobID().toString();
        Map<String, Metric> byId = new HashMap<>();
        metrics.getMetricsByGroup().forEach((group, named) -> {
            if (id.equals(group.getAllVariables().get("<job_id>"))) {
                named.forEach((name, metric) -> byId.put(group.getMetricIdentifier(name), metric));
            }
        });
        return byId;
    }

    private static OptionalLong currentOffset(Map<String, Metric> byId, TopicPartition tp) {
        String suffix = ".KafkaSourceReader.topic." + tp.topic() + ".partition." + tp.partition() + ".currentOffset";
        return byId.entrySet().stream().filter(e -> e.getKey().endsWith(suffix))
                .mapToLong(e -> ((Number) ((Gauge<?>) e.getValue()).getValue()).longValue()).max();
    }

    private long completedCheckpoints(JobClient job) {
        return metricsOf(job).entrySet().stream()
                .filter(e -> e.getKey().endsWith(".numberOfCompletedCheckpoints"))
                .mapToLong(e -> ((Number) ((Gauge<?>) e.getValue()).getValue()).longValue()).max().orElse(0);
    }
}
