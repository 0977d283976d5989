package io.streamhouse.api.lineage;

import io.openlineage.client.OpenLineage.RunEvent;
import io.openlineage.client.OpenLineageClientUtils;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code lineage.events} folded once and kept current: on the first read a consumer of its own (no group, nothing
 * committed) reads the topic from its beginning, then follows it on a daemon thread, keeping each key's latest record
 * as compaction would (a tombstone removes it). A read answers once the follower has reached the topic's end offsets
 * as of that read, within a deadline, so an event written before a request is in its answer, as when every request read
 * the whole topic. A record that is not a readable OpenLineage run event is skipped and reported while it is its key's
 * latest. A follower that failed (broker away at start, topic missing) is replaced on the next read.
 */
@ApplicationScoped
public class LineageLog {
    private static final Logger LOG = Logger.getLogger(LineageLog.class);
    static final Duration DEADLINE = Duration.ofSeconds(5);

    public record Skipped(int partition, long offset, String reason) {
    }

    /** @param events each run's latest event; @param skipped the unreadable records that are their key's latest */
    public record Read(List<RunEvent> events, List<Skipped> skipped) {
    }

    /** The topic could not be read (broker away, topic missing) within the deadline. */
    public static final class Unavailable extends RuntimeException {
        Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final ApiConfig config;
    private final AtomicInteger followersStarted = new AtomicInteger();
    private Follower follower;

    public LineageLog(ApiConfig config) {
        this.config = config;
    }

    public Read readAll() {
        Follower f;
        synchronized (this) {
            if (follower == null || follower.ended()) {
                follower = new Follower(consumer());
                followersStarted.incrementAndGet();
            }
            f = follower;
        }
        return f.readToEnd();
    }

    /** How many followers this bean started (one while the topic stays readable). */
    int followersStarted() {
        return followersStarted.get();
    }

    @PreDestroy
    synchronized void close() {
        if (follower != null) {
            follower.close();
        }
    }

    private KafkaConsumer<String, String> consumer() {
        return new KafkaConsumer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.API).consumer(config.kafka().bootstrapServers(),
                Map.<String, Object>of(
                        ConsumerConfig.CLIENT_ID_CONFIG, "streamhouse-api-lineage-reader",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                        ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) DEADLINE.toMillis(),
                        ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) DEADLINE.toMillis())),
                new StringDeserializer(), new StringDeserializer());
    }

    /** One consumer and the thread that owns it; reads ask it for a snapshot at the current end offsets. */
    private static final class Follower {
        private final String topic = Topics.LINEAGE_EVENTS.name();
        private final KafkaConsumer<String, String> consumer;
        private final ConcurrentLinkedQueue<CompletableFuture<Read>> asked = new ConcurrentLinkedQueue<>();
        private final Map<String, RunEvent> latest = new LinkedHashMap<>();
        private final Map<String, Skipped> skipped = new LinkedHashMap<>();
        private final List<Map.Entry<CompletableFuture<Read>, Map<TopicPartition, Long>>> waiting = new ArrayList<>();
        private final Thread thread;
        private volatile boolean stop;
        private volatile boolean ended;
        private volatile RuntimeException failure;

        Follower(KafkaConsumer<String, String> consumer) {
            this.consumer = consumer;
            this.thread = new Thread(this::run, "streamhouse-api-lineage-follower");
            thread.setDaemon(true);
            thread.start();
        }

        boolean ended() {
            return ended;
        }

        Read readToEnd() {
            CompletableFuture<Read> answer = new CompletableFuture<>();
            asked.add(answer);
            if (ended) {
                throw failure != null ? failure : new Unavailable("the lineage reader closed", null);
            }
            consumer.wakeup();
            try {
                return answer.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                answer.cancel(false);
                throw new Unavailable(topic + " was not read to its end within " + DEADLINE.toSeconds() + " s", null);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Unavailable u ? u : new Unavailable(topic + " could not be read: " + e.getCause(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Unavailable("interrupted while reading " + topic, e);
            }
        }

        void close() {
            stop = true;
            consumer.wakeup();
        }

        private void run() {
            try {
                List<TopicPartition> partitions = null;
                while (partitions == null && !stop) {
                    try {
                        List<PartitionInfo> infos = consumer.partitionsFor(topic, DEADLINE);
                        if (infos == null || infos.isEmpty()) {
                            throw new Unavailable(topic + " does not exist (the platform creates it from the topic catalog)", null);
                        }
                        partitions = infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
                    } catch (WakeupException e) {
                        // a read asked meanwhile: it waits for the first fold
                    }
                }
                if (partitions == null) {
                    return;
                }
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                while (!stop) {
                    try {
                        // Each read waits for the end offsets as of when it was taken up (a wakeup may interrupt the
                        // lookup: the read then stays queued and is taken up again).
                        CompletableFuture<Read> next;
                        while ((next = asked.peek()) != null) {
                            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, DEADLINE);
                            waiting.add(Map.entry(next, end));
                            asked.remove(next);
                        }
                        waiting.removeIf(w -> w.getKey().isDone() || caughtUp(w.getValue()) && w.getKey().complete(snapshot()));
                        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                            apply(r);
                        }
                    } catch (WakeupException e) {
                        // a read asked, or close: handled at the top of the loop
                    }
                }
            } catch (RuntimeException e) {
                failure = e instanceof Unavailable u ? u : new Unavailable(topic + " could not be read: " + e.getMessage(), e);
                if (!(e instanceof KafkaException) && !(e instanceof Unavailable)) {
                    LOG.warnf(e, "Lineage follower of %s stopped", topic);
                }
            } finally {
                ended = true;
                RuntimeException why = failure != null ? failure : new Unavailable("the lineage reader closed", null);
                CompletableFuture<Read> left;
                while ((left = asked.poll()) != null) {
                    left.completeExceptionally(why);
                }
                waiting.forEach(w -> w.getKey().completeExceptionally(why));
                consumer.close(Duration.ofSeconds(1));
            }
        }

        private boolean caughtUp(Map<TopicPartition, Long> end) {
            for (var e : end.entrySet()) {
                if (consumer.position(e.getKey(), DEADLINE) < e.getValue()) {
                    return false;
                }
            }
            return true;
        }

        private void apply(ConsumerRecord<String, String> r) {
            String key = r.key() != null ? r.key() : "@" + r.partition() + "/" + r.offset();
            latest.remove(key);
            skipped.remove(key);
            if (r.value() == null) {
                return; // a tombstone
            }
            try {
                latest.put(key, OpenLineageClientUtils.runEventFromJson(r.value()));
            } catch (RuntimeException e) {
                String reason = "not an OpenLineage run event: " + e.getClass().getSimpleName();
                LOG.warnf("Skipped %s-%d@%d: %s", topic, r.partition(), r.offset(), reason);
                skipped.put(key, new Skipped(r.partition(), r.offset(), reason));
            }
        }

        private Read snapshot() {
            return new Read(List.copyOf(latest.values()), List.copyOf(skipped.values()));
        }
    }
}
