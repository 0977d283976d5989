package io.streamhouse.api.serving;

import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Multi;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.util.List;
import java.util.Map;

/**
 * Live alerts for {@code GET /v1/alerts/stream}: a {@link TopicBroadcaster} over the three alert topics; history is
 * the paged feed's ({@code /v1/alerts}).
 */
@ApplicationScoped
public class AlertBroadcaster {
    private final TopicBroadcaster<Views.FeedAlertView> broadcaster;

    public AlertBroadcaster(ApiConfig config, TopicSerdes serdes) {
        this.broadcaster = new TopicBroadcaster<>("alert-broadcaster",
                KafkaClientSettings.forPrincipal(KafkaPrincipal.API).consumer(config.kafka().bootstrapServers(), Map.of()),
                List.of(Topics.FRAUD_ALERTS, Topics.PARCEL_ALERTS, Topics.MAINTENANCE_ALERTS),
                serdes.valueSerde(Topics.FRAUD_ALERTS).deserializer(), Views.FeedAlertView::of);
    }

    void onStart(@Observes StartupEvent event) {
        broadcaster.start();
    }

    /** What {@code GET /v1/alerts/stream} sends one subscriber. */
    public Multi<TopicBroadcaster.StreamItem<Views.FeedAlertView>> subscribe() {
        return broadcaster.subscribe();
    }

    @PreDestroy
    void close() throws InterruptedException {
        broadcaster.close();
    }
}
