package io.streamhouse.api.streams;

import io.opentelemetry.api.OpenTelemetry;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.domain.wire.SchemaPrefetch;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.SchemaRegistryClient;
import io.streamhouse.projections.DecisionLookupProjection;
import io.streamhouse.tracing.ForKafka;
import io.streamhouse.tracing.KafkaTracing;
import io.streamhouse.tracing.TracingClientSupplier;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StateRestoreListener;

import java.time.Clock;

/**
 * The one Kafka Streams topology this app runs: the decision topology and the projections that serve queries.
 * Only calls the pure builders; everything they do is tested without this app.
 */
@ApplicationScoped
public class StreamsWiring {

    /**
     * One client for every serde of the topology. Created while the topology is built, before the app is ready; it
     * then looks up every catalog topic's schema ids, so the first records need no registry round trip. A singleton,
     * not a client proxy: made when the serdes are, not at the first record.
     */
    @Produces
    @jakarta.inject.Singleton
    SchemaRegistryClient registryClient(ApiConfig config) {
        var client = new CachingSchemaRegistryClient(config.schemaRegistry().url());
        SchemaPrefetch.prefetch(client, Topics.all());
        return client;
    }

    void closeRegistryClient(@Disposes SchemaRegistryClient client) {
        client.close();
    }

    @Produces
    @ApplicationScoped
    TopicSerdes topicSerdes(SchemaRegistryClient client) {
        return new RegistryTopicSerdes(client);
    }

    @Produces
    @ApplicationScoped
    Clock clock() {
        return Clock.systemUTC();
    }

    /** One timeline, both roles: Quarkus' extension sets these on the decision application. */
    private final StreamsTimeline decisionTimeline = new StreamsTimeline("decision streams");

    /** The timeline, and the lineage run, which ends with COMPLETE when the app stops and FAIL when it fails. */
    @Produces
    @jakarta.inject.Singleton
    KafkaStreams.StateListener decisionStateListener(io.streamhouse.api.lineage.DecisionLineage lineage) {
        return (newState, oldState) -> {
            decisionTimeline.onChange(newState, oldState);
            lineage.run().onChange(newState, oldState);
        };
    }

    @Produces
    @jakarta.inject.Singleton
    StateRestoreListener decisionRestoreListener() {
        return decisionTimeline;
    }

    /**
     * The decision app's producers write a publish span and the current trace into each record they write; with the
     * processor wrapper below, a decision carries the trace of the request it answers (tracing off: plain clients).
     */
    @Produces
    @jakarta.inject.Singleton
    KafkaClientSupplier decisionClients(@ForKafka OpenTelemetry openTelemetry) {
        return new TracingClientSupplier(openTelemetry);
    }

    /** Built with the tracing processor wrapper: each request is decided inside its trace. */
    @Produces
    Topology topology(TopicSerdes serdes, Clock clock, @ForKafka OpenTelemetry openTelemetry) {
        StreamsBuilder builder = KafkaTracing.streamsBuilder(openTelemetry);
        DecisionTopology.addTo(builder, new DecisionTopology.Config(clock), serdes);
        DecisionLookupProjection.addTo(builder, serdes);
        return builder.build();
    }
}
