package io.streamhouse.replay;

import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one target's live topology under a shadow application id from offset 0 to a cut, with the shadow's own output
 * topics, then stops. Afterwards the shadow's changelogs hold its stores, and its group's committed offsets are
 * exactly the cut on every input partition (the consumer may have read past the cut; those records were dropped by
 * {@link CutFilter} and the offsets are set back), so a promoted shadow continues from the cut without a gap.
 */
final class ShadowRun {

    /** @param events records applied (before the cut); dropped: records read past the cut and not applied */
    record Result(String applicationId, Duration duration, long events, long dropped) {
        double eventsPerSecond() {
            return duration.isZero() ? 0 : events * 1000.0 / duration.toMillis();
        }
    }

    static Result run(Target target, String shadowApplicationId, Cut cut, Admin admin, String bootstrap, TopicSerdes serdes,
                      Path stateDir, Duration timeout, Progress progress, DecisionTopology.AlertsSeenBy alertsSeen) throws InterruptedException {
        return run(target, shadowApplicationId, Target.shadowOutputs(shadowApplicationId), cut, admin, bootstrap, serdes, stateDir,
                timeout, progress, alertsSeen);
    }

    /** As above, with where the topology reads and writes given (a backfill reads its stitched inputs). */
    static Result run(Target target, String shadowApplicationId, io.streamhouse.plumbing.OutputTopics outputs, Cut cut,
                      Admin admin, String bootstrap, TopicSerdes serdes, Path stateDir, Duration timeout, Progress progress,
                      DecisionTopology.AlertsSeenBy alertsSeen)
            throws InterruptedException {
        createOutputs(admin, target, shadowApplicationId);
        Properties own = new Properties();
        own.put(StreamsConfig.APPLICATION_ID_CONFIG, shadowApplicationId);
        own.putAll(settings(target));
        Properties props = KafkaClientSettings.forPrincipal(KafkaPrincipal.REPLAY).streams(bootstrap, own);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.PROCESSOR_WRAPPER_CLASS_CONFIG, CutFilter.class.getName());
        props.put(CutFilter.CUT_CONFIG, cut.encode());
        StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
        target.addTo(builder, outputs, serdes, cut, alertsSeen);
        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        streams.setUncaughtExceptionHandler(e -> {
            failure.compareAndSet(null, e);
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        if (!target.shadowExactlyOnce()) {
            streams.setGlobalStateRestoreListener(new NoReprocessing(failure));
        }
        CutFilter.Counts counts = CutFilter.countsOf(shadowApplicationId);
        Instant began = Instant.now();
        Cut committed = target.committedPart(cut, outputs);
        long span = Math.max(1, committed.span());
        boolean caughtUp;
        streams.start();
        try {
            caughtUp = Groups.awaitCaughtUp(admin, shadowApplicationId, committed, target.repartitionTopics(shadowApplicationId), timeout,
                    left -> progress.update(target.label(), span - Math.min(span, left), span, counts.applied().sum(),
                            Duration.between(began, Instant.now())),
                    () -> failure.get() != null || streams.state() == KafkaStreams.State.ERROR
                            || streams.state() == KafkaStreams.State.PENDING_ERROR);
        } finally {
            streams.close(Duration.ofSeconds(30));
        }
        Duration took = Duration.between(began, Instant.now());
        if (failure.get() != null) {
            throw new IllegalStateException("the shadow " + shadowApplicationId + " failed: " + failure.get(), failure.get());
        }
        if (!caughtUp) {
            throw new Endpoints.EnvironmentException("the shadow " + shadowApplicationId + " did not reach the cut within "
                    + timeout.toSeconds() + " s (--timeout)");
        }
        resetToCut(admin, shadowApplicationId, committed);
        streams.cleanUp();
        progress.done(target.label(), counts.applied().sum(), took);
        return new Result(shadowApplicationId, took, counts.applied().sum(), counts.dropped().sum());
    }

    /**
     * The shadow's Streams settings beyond its ids, cut and state directory. What a rebuild needs from the guarantee
     * is that every event before the cut is applied exactly once in a run that succeeds; a run that fails is
     * discarded. At-least-once gives that as long as no task is reopened mid-run (only a reopened task reprocesses
     * from its last commit, and the folds are not idempotent for every repeat: a vehicle's {@code readings}, a
     * parcel's {@code scans} and a customer's {@code orderCount} count a repeat that is not the newest event again),
     * which {@link NoReprocessing} turns into a failure; it saves a transaction per commit and lets the customer
     * folds read the repartitioned orders and decisions as they are written rather than a commit later. A target
     * whose topology reads its own output back (decisions: review outcomes' fraud flags through the alerts global table) keeps exactly-once, so that it
     * sees that output as live does, once committed.
     */
    static Map<String, Object> settings(Target target) {
        Map<String, Object> props = new HashMap<>();
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
                target.shadowExactlyOnce() ? StreamsConfig.EXACTLY_ONCE_V2 : StreamsConfig.AT_LEAST_ONCE);
        // Live reads committed records only (exactly-once): so must its shadow, whatever its own guarantee. At least
        // once, Streams leaves the consumer at read_uncommitted, and a shadow of serving folded the alerts of a CEP
        // transaction the kill-cep drill had aborted, which live never saw.
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.ISOLATION_LEVEL_CONFIG), "read_committed");
        // Throughput over latency: nobody waits on a shadow's single records.
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000);
        props.put(StreamsConfig.consumerPrefix("max.poll.records"), 2000);
        // The rebuild is CPU-bound in its stream thread (JFR, docs/benchmarks-history.md): a second one takes half
        // the tasks. More would only compete with the broker on a small machine.
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 2);
        // Changelog records of customer states are kilobytes: larger batches, fewer produce requests for the broker.
        props.put(StreamsConfig.producerPrefix("batch.size"), 256 * 1024);
        return props;
    }

    /**
     * Fails an at-least-once shadow as soon as a store is restored from a non-empty changelog range: in a shadow that
     * started empty that happens only when a task is reopened (a dirty close after a migration or an error), and the
     * reopened task then reprocesses from its last commit, applying some events twice. A task handed cleanly from one
     * thread to the other is checkpointed at its changelog's end and restores nothing.
     */
    static final class NoReprocessing implements org.apache.kafka.streams.processor.StateRestoreListener {
        private final AtomicReference<Throwable> failure;

        NoReprocessing(AtomicReference<Throwable> failure) {
            this.failure = failure;
        }

        @Override
        public void onRestoreStart(TopicPartition partition, String store, long startingOffset, long endingOffset) {
            if (endingOffset > startingOffset) {
                failure.compareAndSet(null, new IllegalStateException("store " + store + " was reopened mid-run and restored "
                        + (endingOffset - startingOffset) + " records of " + partition + ": under at-least-once some events "
                        + "may be applied twice, so this shadow cannot be trusted (discard it and rebuild)"));
            }
        }

        @Override
        public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long numRestored) {
        }

        @Override
        public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
        }
    }

    /** The shadow's copies of the live outputs, created as the live ones are (Streams creates only its internal topics). */
    static void createOutputs(Admin admin, Target target, String shadowApplicationId) {
        var outputs = Target.shadowOutputs(shadowApplicationId);
        List<NewTopic> topics = target.liveOutputs().stream()
                .map((Topic<?, ?> t) -> new NewTopic(outputs.of(t.name()), t.partitions(), (short) -1).configs(t.configs()))
                .toList();
        try {
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new Endpoints.EnvironmentException("cannot create the shadow's topics: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Sets the group's offsets to the cut where they differ (a shadow that read past it; a backfilled shadow, whose
     * live inputs it never read), once its closed member is out of the group.
     */
    static void resetToCut(Admin admin, String groupId, Cut cut) throws InterruptedException {
        Map<TopicPartition, Long> committed = Groups.committed(admin, groupId);
        Map<TopicPartition, OffsetAndMetadata> reset = new HashMap<>();
        cut.offsets().forEach((tp, end) -> {
            Long at = committed.get(tp);
            if (at == null || at != end.longValue()) {
                reset.put(tp, new OffsetAndMetadata(end));
            }
        });
        if (reset.isEmpty()) {
            return;
        }
        Instant deadline = Instant.now().plusSeconds(30);
        while (true) {
            removeMembers(admin, groupId);
            try {
                admin.alterConsumerGroupOffsets(groupId, reset).all().get(30, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException | TimeoutException e) {
                // The group may still show the closed member for a moment.
                if (Instant.now().isAfter(deadline)) {
                    throw new Endpoints.EnvironmentException("cannot set the shadow's offsets to the cut: " + e.getMessage(), e);
                }
                Thread.sleep(500);
            }
        }
    }

    /**
     * Removes every member of a group. Streams does not leave its group on close (and leaveGroup only removes static
     * members): the group keeps a closed member until its session times out, and refuses offsets from outside and its
     * deletion until then. Best effort: whether the group is empty shows in what is done with it next.
     */
    static void removeMembers(Admin admin, String groupId) {
        try {
            admin.removeMembersFromConsumerGroup(groupId, new RemoveMembersFromConsumerGroupOptions()).all()
                    .get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // no member left to remove, or not yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private ShadowRun() {
    }
}
