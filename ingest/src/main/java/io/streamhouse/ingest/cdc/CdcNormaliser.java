package io.streamhouse.ingest.cdc;

import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.wire.AvroSerde;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.SchemaRegistryClient;
import io.streamhouse.lineage.LineageOutputs;
import io.streamhouse.lineage.LineageRun;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;

/**
 * Runs {@link CdcNormalisationTopology} as a {@link KafkaStreams} instance: what ingest starts at boot, and what the
 * integration tests start without Quarkus (Avro classes and Streams in one class loader).
 *
 * <p>Guarantees ({@code put}): {@code exactly_once_v2} — the domain events, the normaliser's stores and the raw
 * topic's offsets commit atomically. Tunables ({@code putIfAbsent} semantics through {@link Settings}): commit interval
 * 100 ms (latency of a domain event is about one commit interval), session timeout 10 s.
 */
public final class CdcNormaliser implements AutoCloseable {
    /**
     * Under exactly-once a domain event becomes visible to read_committed readers only at a commit, so the interval
     * is part of every change's latency; 10 ms, as for the api's decisions (docs/benchmarks.md).
     */
    public static final Duration DEFAULT_COMMIT_INTERVAL = Duration.ofMillis(10);

    public static final String DEFAULT_APPLICATION_ID = "streamhouse-ingest-cdc";

    /**
     * @param stateDir a directory for this instance's stores; a fresh one per broker (state from another cluster
     *                 breaks Streams)
     */
    public record Settings(String bootstrapServers, String registryUrl, Path stateDir, String applicationId,
                           Duration commitInterval) {
        public Settings {
            Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            Objects.requireNonNull(registryUrl, "registryUrl");
            Objects.requireNonNull(stateDir, "stateDir");
            applicationId = applicationId == null ? DEFAULT_APPLICATION_ID : applicationId;
            commitInterval = commitInterval == null ? DEFAULT_COMMIT_INTERVAL : commitInterval;
        }
    }

    private final SchemaRegistryClient registry;
    private final KafkaStreams streams;
    private final LineageRun lineage;

    private CdcNormaliser(SchemaRegistryClient registry, KafkaStreams streams, LineageRun lineage) {
        this.registry = registry;
        this.streams = streams;
        this.lineage = lineage;
    }

    public static CdcNormaliser start(Settings settings) {
        return start(settings, LineageOutputs.NONE);
    }

    /**
     * Starts it, with an OpenLineage run written where {@code lineage} says: START now, COMPLETE or FAIL from the
     * state listener, COMPLETE at the latest on {@link #close()} (docs/lineage.md).
     */
    public static CdcNormaliser start(Settings settings, LineageOutputs lineageOutputs) {
        SchemaRegistryClient registry = new CachingSchemaRegistryClient(settings.registryUrl());
        var topology = CdcNormalisationTopology.build(registry, new CdcNormalisationTopology.Serdes2(
                new AvroSerde<>(registry, CustomerEvent.class, false), new AvroSerde<>(registry, OrderEvent.class, false)));
        KafkaStreams streams = new KafkaStreams(topology, properties(settings));
        LineageRun lineage = LineageRun.forStreams(settings.applicationId(), settings.bootstrapServers(), topology.describe(),
                lineageOutputs, Clock.systemUTC(),
                io.streamhouse.security.kafka.KafkaClientSettings.forPrincipal(io.streamhouse.security.kafka.KafkaPrincipal.CDC_NORMALISER).security());
        streams.setStateListener(lineage::onChange);
        lineage.start();
        streams.start();
        return new CdcNormaliser(registry, streams, lineage);
    }

    static Properties properties(Settings settings) {
        Properties p = new Properties();
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(settings.commitInterval().toMillis()));
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), "10000");
        // -1: the broker's default.replication.factor (1 on one broker, 3 on a cluster) for the changelogs and repartitions.
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "-1");
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        // guarantees
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, settings.applicationId());
        p.put(StreamsConfig.STATE_DIR_CONFIG, settings.stateDir().toAbsolutePath().toString());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        return io.streamhouse.security.kafka.KafkaClientSettings.forPrincipal(
                io.streamhouse.security.kafka.KafkaPrincipal.CDC_NORMALISER).streams(settings.bootstrapServers(), p);
    }

    public KafkaStreams.State state() {
        return streams.state();
    }

    public boolean isRunning() {
        return streams.state() == KafkaStreams.State.RUNNING;
    }

    @Override
    public void close() {
        streams.close(Duration.ofSeconds(15));
        lineage.close();
        registry.close();
    }
}
