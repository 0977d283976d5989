package io.streamhouse.api.streams;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.jboss.logging.Logger;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs, at INFO, each state change of one Kafka Streams application with the time since this JVM started, and on
 * RUNNING how much was restored from the changelogs and when: what an api restart spends where (JVM and Quarkus
 * start, group join, restore) can be read from the api's log without raising Kafka's log level.
 */
public final class StreamsTimeline implements KafkaStreams.StateListener, StateRestoreListener {
    private static final Logger LOG = Logger.getLogger(StreamsTimeline.class);

    private final String app;
    private final long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong partitions = new AtomicLong();
    private final AtomicLong firstRestoreStart = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong lastRestoreEnd = new AtomicLong();

    public StreamsTimeline(String app) {
        this.app = app;
    }

    @Override
    public void onChange(KafkaStreams.State newState, KafkaStreams.State oldState) {
        long now = System.currentTimeMillis();
        if (newState == KafkaStreams.State.RUNNING && partitions.get() > 0) {
            LOG.infof("%s: %s -> %s %.1f s after the JVM started; restored %d records into %d store partitions "
                            + "between %.1f s and %.1f s", app, oldState, newState, since(now), records.get(),
                    partitions.get(), since(firstRestoreStart.get()), since(lastRestoreEnd.get()));
        } else {
            LOG.infof("%s: %s -> %s %.1f s after the JVM started", app, oldState, newState, since(now));
        }
    }

    @Override
    public void onRestoreStart(TopicPartition partition, String storeName, long startingOffset, long endingOffset) {
        firstRestoreStart.accumulateAndGet(System.currentTimeMillis(), Math::min);
    }

    @Override
    public void onBatchRestored(TopicPartition partition, String storeName, long batchEndOffset, long numRestored) {
        records.addAndGet(numRestored);
    }

    @Override
    public void onRestoreEnd(TopicPartition partition, String storeName, long totalRestored) {
        partitions.incrementAndGet();
        lastRestoreEnd.accumulateAndGet(System.currentTimeMillis(), Math::max);
    }

    private double since(long millis) {
        return (millis - jvmStart) / 1000.0;
    }
}
