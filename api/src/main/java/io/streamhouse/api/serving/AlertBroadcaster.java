package io.streamhouse.api.serving;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.operators.multi.processors.BroadcastProcessor;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Live alerts for the SSE stream. Every instance tails all partitions of the three alert topics itself (no consumer
 * group, read_committed, from the end), so a subscriber sees every new alert whichever instance it is connected to;
 * history is the paged feed's job. Unreadable records are skipped here: the serving topology dead-letters them.
 */
@ApplicationScoped
public class AlertBroadcaster {
    private static final Logger LOG = Logger.getLogger(AlertBroadcaster.class);
    private static final List<Topic<String, Alert>> TOPICS = List.of(Topics.FRAUD_ALERTS, Topics.PARCEL_ALERTS, Topics.MAINTENANCE_ALERTS);

    private final ApiConfig config;
    private final TopicSerdes serdes;
    private final BroadcastProcessor<Views.FeedAlertView> live = BroadcastProcessor.create();
    private volatile KafkaConsumer<String, byte[]> consumer;
    private volatile boolean running = true;
    private Thread thread;

    public AlertBroadcaster(ApiConfig config, TopicSerdes serdes) {
        this.config = config;
        this.serdes = serdes;
    }

    void onStart(@Observes StartupEvent event) {
        thread = new Thread(this::run, "alert-broadcaster");
        thread.setDaemon(true);
        thread.start();
    }

    /** Alerts one subscriber may have waiting before it is told it fell behind. A burst of 1,000 fits. */
    public static final int SUBSCRIBER_BUFFER = 1024;

    /** One item of a subscriber's live stream: an alert, or the last item, saying that it fell too far behind. */
    public sealed interface StreamItem permits NewAlert, Overflow {
    }

    public record NewAlert(Views.FeedAlertView alert) implements StreamItem {
    }

    /** The subscriber had {@code buffered} alerts waiting and more came: its stream ends here; re-read {@code /v1/alerts}. */
    public record Overflow(int buffered) implements StreamItem {
    }

    /** What {@code GET /v1/alerts/stream} sends one subscriber: {@link #subscribe(Multi)} over the live alerts. */
    public Multi<StreamItem> subscribe() {
        return subscribe(live);
    }

    /**
     * A subscriber's own stream over {@code alerts}: its own bounded buffer of {@link #SUBSCRIBER_BUFFER} alerts, so a
     * slow reader neither holds the others back nor loses alerts silently. A bare {@link BroadcastProcessor} fails a
     * subscriber that has not requested an item with a back-pressure failure, which ended the stream on the first
     * burst of two alerts; now, when the buffer is full, the alerts waiting for it are dropped, it gets one
     * {@link Overflow} item next, and its stream completes (it re-reads what it missed from {@code /v1/alerts}).
     */
    static Multi<StreamItem> subscribe(Multi<Views.FeedAlertView> alerts) {
        return alerts.onOverflow().buffer(SUBSCRIBER_BUFFER)
                .<StreamItem>map(NewAlert::new)
                .onFailure(io.smallrye.mutiny.subscription.BackPressureFailure.class)
                .recoverWithItem(f -> new Overflow(SUBSCRIBER_BUFFER));
    }

    private void run() {
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(KafkaClientSettings.forPrincipal(KafkaPrincipal.API).consumer(
                config.kafka().bootstrapServers(), Map.of(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50)),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer = c;
            List<TopicPartition> partitions = new ArrayList<>();
            for (Topic<String, Alert> t : TOPICS) {
                for (int p = 0; p < t.partitions(); p++) {
                    partitions.add(new TopicPartition(t.name(), p));
                }
            }
            c.assign(partitions);
            c.seekToEnd(partitions);
            var deserializer = serdes.valueSerde(Topics.FRAUD_ALERTS).deserializer();
            while (running) {
                for (var record : c.poll(Duration.ofMillis(500))) {
                    try {
                        Alert alert = deserializer.deserialize(record.topic(), record.headers(), record.value());
                        if (alert != null) {
                            live.onNext(Views.FeedAlertView.of(alert));
                        }
                    } catch (RuntimeException e) {
                        LOG.debugf("Skipping unreadable alert %s-%d@%d: %s", record.topic(), record.partition(), record.offset(), e.getMessage());
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            LOG.error("Alert stream stopped", e);
        }
    }

    @PreDestroy
    void close() throws InterruptedException {
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
