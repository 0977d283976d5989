package io.streamhouse.api.decisions;

import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Multi;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.api.serving.LiveEvents;
import io.streamhouse.api.serving.TopicBroadcaster;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.security.Roles;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import org.jboss.resteasy.reactive.RestStreamElementType;

import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/decisions/stream}: payment decisions as they are made, as server-sent events ({@link LiveDecisionView}),
 * from a {@link TopicBroadcaster} over {@code payments.transactions.decisions}. Only what is decided after the
 * subscriber connects: the recent ones are listed at {@code /v1/decisions} ({@link DecisionFeedResource}), which a
 * subscriber that overflowed reads before it subscribes again; one decision is read again at
 * {@code /v1/transactions/{id}/decision}.
 */
@Path("/v1/decisions/stream")
@ApplicationScoped
public class DecisionStreamResource {
    private final TopicBroadcaster<LiveDecisionView> broadcaster;

    public DecisionStreamResource(ApiConfig config, TopicSerdes serdes) {
        this.broadcaster = new TopicBroadcaster<>("decision-broadcaster",
                KafkaClientSettings.forPrincipal(KafkaPrincipal.API).consumer(config.kafka().bootstrapServers(), Map.of()),
                List.of(Topics.TRANSACTION_DECISIONS), serdes.valueSerde(Topics.TRANSACTION_DECISIONS).deserializer(),
                LiveDecisionView::of);
    }

    void onStart(@Observes StartupEvent event) {
        broadcaster.start();
    }

    @GET
    @RolesAllowed({Roles.REVIEWER, Roles.OPS})
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    public Multi<OutboundSseEvent> stream(@Context Sse sse) {
        return LiveEvents.sse(sse, broadcaster.subscribe(), LiveDecisionView.class, "decisions", "/v1/decisions");
    }

    @PreDestroy
    void close() throws InterruptedException {
        broadcaster.close();
    }
}
