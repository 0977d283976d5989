package io.streamhouse.api.serving;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.operators.multi.processors.BroadcastProcessor;
import io.smallrye.mutiny.subscription.BackPressureFailure;
import io.streamhouse.domain.topic.Topic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Live records of some topics for server-sent event streams. It tails all partitions of its topics itself (no
 * consumer group, read_committed, from the end), so a subscriber sees every new record whichever instance it is
 * connected to; history is another route's job. Each subscriber has its own bounded buffer ({@link #subscribe(Multi)}).
 * Unreadable records are skipped here: the topologies that read these topics dead-letter them.
 *
 * @param <T> what a subscriber receives: the JSON view of one record
 */
public final class TopicBroadcaster<T> {
    private static final Logger LOG = Logger.getLogger(TopicBroadcaster.class);

    /** Items one subscriber may have waiting before it is told it fell behind. A burst of 1,000 fits. */
    public static final int SUBSCRIBER_BUFFER = 1024;

    /** One item of a subscriber's live stream: a record's view, or the last item, saying that it fell too far behind. */
    public sealed interface StreamItem<T> permits Item, Overflow {
    }

    public record Item<T>(T value) implements StreamItem<T> {
    }

    /** The subscriber had {@code buffered} items waiting and more came: its stream ends here. */
    public record Overflow<T>(int buffered) implements StreamItem<T> {
    }

    private final String name;
    private final Map<String, Object> consumerConfig;
    private final List<TopicPartition> partitions;
    private final Function<org.apache.kafka.clients.consumer.ConsumerRecord<String, byte[]>, T> decode;
    private final BroadcastProcessor<T> live = BroadcastProcessor.create();
    private volatile KafkaConsumer<String, byte[]> consumer;
    private volatile boolean running = true;
    private Thread thread;

    /**
     * @param consumerConfig the consumer's connection and security settings; isolation, auto-commit and fetch wait
     *                       are set here
     * @param view           the record's view; null skips the record
     */
    public <V> TopicBroadcaster(String name, Map<String, Object> consumerConfig, List<? extends Topic<String, ? extends V>> topics,
                                Deserializer<? extends V> values, Function<? super V, ? extends T> view) {
        this.name = name;
        Map<String, Object> config = new HashMap<>(consumerConfig);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
        this.consumerConfig = Map.copyOf(config);
        this.partitions = partitionsOf(topics);
        this.decode = record -> {
            V value = values.deserialize(record.topic(), record.headers(), record.value());
            return value == null ? null : view.apply(value);
        };
    }

    static List<TopicPartition> partitionsOf(List<? extends Topic<String, ?>> topics) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (Topic<String, ?> t : topics) {
            for (int p = 0; p < t.partitions(); p++) {
                partitions.add(new TopicPartition(t.name(), p));
            }
        }
        return List.copyOf(partitions);
    }

    /** Starts tailing on a daemon thread of its own. */
    public void start() {
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** What one subscriber's stream is: {@link #subscribe(Multi)} over the live records. */
    public Multi<StreamItem<T>> subscribe() {
        return subscribe(live);
    }

    /**
     * A subscriber's own stream over {@code values}: its own bounded buffer of {@link #SUBSCRIBER_BUFFER} items, so a
     * slow reader neither holds the others back nor loses items silently. A bare {@link BroadcastProcessor} fails a
     * subscriber that has not requested an item with a back-pressure failure; here, when the buffer is full, the
     * items waiting for it are dropped, it gets one {@link Overflow} item next, and its stream completes (it re-reads
     * what it missed elsewhere).
     */
    public static <T> Multi<StreamItem<T>> subscribe(Multi<T> values) {
        return values.onOverflow().buffer(SUBSCRIBER_BUFFER)
                .<StreamItem<T>>map(Item::new)
                .onFailure(BackPressureFailure.class)
                .recoverWithItem(f -> new Overflow<>(SUBSCRIBER_BUFFER));
    }

    private void run() {
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer = c;
            c.assign(partitions);
            c.seekToEnd(partitions);
            while (running) {
                for (var record : c.poll(Duration.ofMillis(500))) {
                    try {
                        T value = decode.apply(record);
                        if (value != null) {
                            live.onNext(value);
                        }
                    } catch (RuntimeException e) {
                        LOG.debugf("%s: skipping unreadable record %s-%d@%d: %s", name, record.topic(), record.partition(),
                                record.offset(), e.getMessage());
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            LOG.errorf(e, "%s stopped", name);
        }
    }

    /** Stops tailing and completes every subscriber's stream. */
    public void close() throws InterruptedException {
        running = false;
        KafkaConsumer<String, byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        if (thread != null) {
            thread.join(5_000);
        }
        live.onComplete();
    }
}
