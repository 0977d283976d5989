package io.streamhouse.api.serving;

import io.opentelemetry.api.OpenTelemetry;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.streamhouse.api.ApiConfig;
import io.streamhouse.api.streams.StreamsTimeline;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.lineage.LineageRun;
import io.streamhouse.projections.serving.OpenStores;
import io.streamhouse.projections.serving.RuleHistoryTopology;
import io.streamhouse.projections.serving.ServingStores;
import io.streamhouse.projections.serving.ServingTopology;
import io.streamhouse.projections.serving.StateLayout;
import io.streamhouse.tracing.ForKafka;
import io.streamhouse.tracing.KafkaTracing;
import io.streamhouse.tracing.TracingClientSupplier;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.HostInfo;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

/**
 * The serving projections' Kafka Streams application. It is separate from the decision application (which Quarkus'
 * extension runs) because both read shop.customers, the decisions and the fraud alerts, and one topology may
 * subscribe a topic only once; separate, the latency-critical decisions also do not wait on projection commits.
 * Started at startup, once the HTTP server listens, because {@code application.server} must be the real host:port
 * that other instances forward queries to.
 */
@ApplicationScoped
public class ServingStreams {
    private static final Logger LOG = Logger.getLogger(ServingStreams.class);

    private final ApiConfig config;
    private final TopicSerdes serdes;
    private final OpenTelemetry openTelemetry;
    private volatile KafkaStreams streams;
    private volatile KeyRouter router;
    private volatile LineageRun lineage;

    private final jakarta.enterprise.inject.Instance<MeterRegistry> registries;
    private KafkaStreamsMetrics metrics;

    public ServingStreams(ApiConfig config, TopicSerdes serdes, jakarta.enterprise.inject.Instance<MeterRegistry> registries,
                          @ForKafka OpenTelemetry openTelemetry) {
        this.config = config;
        this.openTelemetry = openTelemetry;
        this.serdes = serdes;
        this.registries = registries;
    }

    /**
     * The HTTP server listens before StartupEvent; with a random port (tests) Quarkus publishes the real one as a
     * system property, which is read first.
     */
    void onStart(@Observes StartupEvent event) {
        if (!config.serving().enabled()) {
            LOG.warn("Serving projections are disabled (streamhouse.serving.enabled=false): the /v1 lookups answer 503");
            return;
        }
        var cfg = ConfigProvider.getConfig();
        boolean test = LaunchMode.current() == LaunchMode.TEST;
        String portProperty = test ? "quarkus.http.test-port" : "quarkus.http.port";
        String port = System.getProperty(portProperty, cfg.getOptionalValue(portProperty, String.class).orElse(test ? "8081" : "8080"));
        String host = config.serving().advertisedHost()
                .orElse(cfg.getOptionalValue("quarkus.http.host", String.class).orElse("127.0.0.1"));
        if ("0.0.0.0".equals(host)) {
            host = "127.0.0.1";
        }
        startAt(new HostInfo(host, Integer.parseInt(port)));
    }

    synchronized void startAt(HostInfo self) {
        if (streams != null) {
            return;
        }
        var cfg = ConfigProvider.getConfig();
        String stateDir = cfg.getOptionalValue("kafka-streams.state.dir", String.class).orElse("target/kafka-streams-state");
        String applicationId = applicationId(config.serving());
        Properties props = properties(applicationId, config.kafka().bootstrapServers(), self,
                Path.of(stateDir, "serving-" + self.port()), config.serving().standbyReplicas(), config.serving().commitIntervalMs(),
                config.serving().streamThreads());
        cfg.getOptionalValue("kafka-streams.replication.factor", String.class)
                .ifPresent(rf -> props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, rf));
        withStaticMembership(props, config.staticMembership() ? config.instanceId() : java.util.Optional.empty());
        withOverrides(props, config.serving().streams());
        OpenStores openStores = new OpenStores(config.serving().cachedKeysPerPartition());
        var topologyConfig = new ServingTopology.Config(config.serving().historyRetention(), config.serving().historySegment());
        Topology topology = tracedTopology(topologyConfig, serdes, openStores, openTelemetry, props);
        KafkaStreams created = new KafkaStreams(topology, props, new TracingClientSupplier(openTelemetry));
        // START now, COMPLETE or FAIL from the state listener (or at close): docs/lineage.md.
        LineageRun createdLineage = LineageRun.forStreams(applicationId, config.kafka().bootstrapServers(), topology.describe(),
                config.lineage().outputs(), java.time.Clock.systemUTC(),
                io.streamhouse.security.kafka.KafkaClientSettings.forPrincipal(io.streamhouse.security.kafka.KafkaPrincipal.SERVING).security());
        rebuildIfLaidOutOtherwise(created, Path.of(props.getProperty(StreamsConfig.STATE_DIR_CONFIG)),
                applicationId, StateLayout.of(topologyConfig));
        created.setUncaughtExceptionHandler(e -> {
            LOG.error("Serving projections thread failed; replacing it", e);
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        KeyRouter createdRouter = new KeyRouter(created, openStores, self, new HttpForwarder(Duration.ofMillis(300), Duration.ofSeconds(2),
                new InternalToken(config.serving().internalTokenFile().map(Path::of))), partitionsByStore());
        StreamsTimeline timeline = new StreamsTimeline("serving projections");
        created.setStateListener((newState, oldState) -> {
            createdRouter.invalidateMetadata(); // partition owners change only in a rebalance
            timeline.onChange(newState, oldState);
            createdLineage.onChange(newState, oldState);
        });
        created.setGlobalStateRestoreListener(timeline);
        router = createdRouter;
        streams = created;
        lineage = createdLineage;
        if (registries.isResolvable()) {
            // Streams' own metrics (records-lag, process rates, commit latency) on /q/metrics, tagged kafka.*
            metrics = new KafkaStreamsMetrics(created);
            metrics.bindTo(registries.get());
        }
        createdLineage.start();
        created.start();
        LOG.infof("Serving projections started as %s (application %s)", self, applicationId);
    }

    /**
     * The serving topology and the rules' history ({@link RuleHistoryTopology}) with the tracing processor wrapper: a scan, reading or alert is folded into its projection
     * inside the trace its headers carry (the ingest request's), and the changelog writes it causes join that trace.
     */
    public static Topology tracedTopology(ServingTopology.Config topologyConfig, TopicSerdes serdes, OpenStores openStores,
                                          OpenTelemetry openTelemetry, Properties props) {
        StreamsBuilder builder = KafkaTracing.streamsBuilder(openTelemetry, props);
        ServingTopology.addTo(builder, topologyConfig, serdes, openStores);
        RuleHistoryTopology.addTo(builder, serdes, topologyConfig.outputs(), openStores);
        return builder.build();
    }

    /** The promoted id when the id file names one, else the configured id. */
    static String applicationId(ApiConfig.Serving serving) {
        if (serving.applicationIdFile().isPresent() && Files.isRegularFile(serving.applicationIdFile().get())) {
            try {
                String promoted = Files.readString(serving.applicationIdFile().get()).trim();
                if (!promoted.isEmpty()) {
                    return promoted;
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot read the serving application id from "
                        + serving.applicationIdFile().get(), e);
            }
        }
        return serving.applicationId();
    }

    /** Wipes local state written with another store layout (it restores from the changelogs), then records this one. */
    private static void rebuildIfLaidOutOtherwise(KafkaStreams created, Path stateDir, String applicationId, String layout) {
        try {
            String why = StateLayout.mismatch(stateDir, applicationId, layout);
            if (why != null) {
                LOG.warnf("Rebuilding the serving stores from their changelogs: %s", why);
                created.cleanUp();
            }
            StateLayout.record(stateDir, layout);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot check the serving state layout in " + stateDir, e);
        }
    }

    /** What correctness needs is {@code put}; tunables are {@code putIfAbsent}. Shared with the two-instance test. */
    public static Properties properties(String applicationId, String bootstrap, HostInfo self, Path stateDir,
                                        int standbyReplicas, long commitIntervalMs, int streamThreads) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.putAll(io.streamhouse.security.kafka.KafkaClientSettings.forPrincipal(
                io.streamhouse.security.kafka.KafkaPrincipal.SERVING).streams(bootstrap, new Properties()));
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, self.host() + ":" + self.port());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.putIfAbsent(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, standbyReplicas);
        props.putIfAbsent(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitIntervalMs);
        props.putIfAbsent(StreamsConfig.NUM_STREAM_THREADS_CONFIG, streamThreads);
        // A killed instance is noticed after the session timeout; keep it short so its partitions move quickly.
        props.putIfAbsent(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        props.putIfAbsent(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);
        return props;
    }

    /**
     * Static membership: {@code group.instance.id} = this instance's id (Streams appends {@code -<thread>} per stream
     * thread), so a restarted instance, after a {@code kill -9} too, rejoins as its old member and keeps its tasks
     * instead of waiting {@code session.timeout.ms} for the dead member to leave. Empty: dynamic membership.
     */
    public static Properties withStaticMembership(Properties props, java.util.Optional<String> instanceId) {
        instanceId.ifPresent(id -> props.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), id));
        return props;
    }

    /** The properties {@link #properties} sets for correctness: not to be overridden. */
    static final java.util.Set<String> FIXED = java.util.Set.of(StreamsConfig.APPLICATION_ID_CONFIG,
            StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
            StreamsConfig.APPLICATION_SERVER_CONFIG, StreamsConfig.STATE_DIR_CONFIG);

    /**
     * Applies an operator's {@code streamhouse.serving.streams.*} properties over the tunables of {@code props};
     * refuses the ones correctness depends on, naming them.
     */
    public static Properties withOverrides(Properties props, Map<String, String> overrides) {
        java.util.List<String> refused = overrides.keySet().stream().filter(k -> FIXED.contains(k)
                || io.streamhouse.security.kafka.KafkaClientSettings.isSecuritySetting(k)).sorted().toList();
        if (!refused.isEmpty()) {
            throw new IllegalArgumentException("streamhouse.serving.streams cannot set " + refused
                    + ": the serving application sets them itself (see ServingStreams.properties)");
        }
        props.putAll(overrides);
        return props;
    }

    /** Partitions of each store: those of its input topics. */
    public static Map<String, Integer> partitionsByStore() {
        return Map.of(
                ServingStores.PARCEL_TRACKING, Topics.PARCEL_SCANS.partitions(),
                ServingStores.VEHICLE_HEALTH, Topics.VEHICLE_TELEMETRY.partitions(),
                ServingStores.SUBJECT_ALERTS, Topics.FRAUD_ALERTS.partitions(),
                ServingStores.ALERT_FEED, Topics.FRAUD_ALERTS.partitions(),
                ServingStores.DECISION_FEED, Topics.TRANSACTION_DECISIONS.partitions(),
                ServingStores.CUSTOMER_STATE, Topics.CUSTOMERS.partitions(),
                ServingStores.RULE_HISTORY, RuleHistoryTopology.PARTITIONS);
    }

    /** Null until the HTTP server has started. */
    public KeyRouter router() {
        return router;
    }

    public boolean enabled() {
        return config.serving().enabled();
    }

    public KafkaStreams.State state() {
        KafkaStreams s = streams;
        return s == null ? KafkaStreams.State.CREATED : s.state();
    }

    /**
     * Closed when shutdown starts, before any bean is destroyed: the stream threads encode with the registry client,
     * and a {@code @PreDestroy} alone could run after that client was closed (the folds then failed on every record
     * still in flight, and logged them as dead letters, until the threads stopped).
     */
    void onStop(@Observes ShutdownEvent event) {
        close();
    }

    @PreDestroy
    synchronized void close() {
        KafkaStreams s = streams;
        if (metrics != null) {
            metrics.close();
            metrics = null;
        }
        if (s != null) {
            s.close(Duration.ofSeconds(10));
        }
        LineageRun l = lineage;
        if (l != null) {
            l.close();
            lineage = null;
        }
    }
}
