package io.streamhouse.api;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;

/** What the api needs to know about its surroundings; set by properties or STREAMHOUSE_* environment variables. */
@ConfigMapping(prefix = "streamhouse")
public interface ApiConfig {
    Kafka kafka();

    /**
     * This instance's stable identity (see {@code InstanceIdentity}, which derives it from the host and the state
     * directory unless {@code STREAMHOUSE_INSTANCE_ID} names it): the static group member name of both Streams apps.
     */
    @WithName("instance-id")
    java.util.Optional<String> instanceId();

    /** Static group membership for both Streams apps: a restarted instance takes its tasks back without a rebalance wait. */
    @WithName("static-membership")
    @io.smallrye.config.WithDefault("true")
    boolean staticMembership();

    @WithName("schema-registry")
    Registry schemaRegistry();

    /** The serving projections' own Kafka Streams application (see {@code ServingStreams}). */
    Serving serving();

    /** Access control: rate limits, MCP resource metadata (docs/security.md). */
    io.streamhouse.security.http.AccessConfig security();

    /** OpenLineage run events of both Streams apps (docs/lineage.md). */
    Lineage lineage();

    interface Lineage {
        /** Write them to lineage.events (what {@code GET /v1/lineage} reads). */
        @io.smallrye.config.WithDefault("true")
        boolean topic();

        /** Also append them to this file, one JSON event per line; absent: no file. */
        java.util.Optional<java.nio.file.Path> file();

        default io.streamhouse.lineage.LineageOutputs outputs() {
            return new io.streamhouse.lineage.LineageOutputs(topic(), file());
        }
    }

    /**
     * The stack's status file ({@code status.json}, written by the launcher's supervisor), which {@code GET /v1/status}
     * serves; absent: that route answers 404.
     */
    @WithName("status-file")
    java.util.Optional<java.nio.file.Path> statusFile();

    /**
     * The stack's run records ({@code <data>/results/}, one JSON file per replay or drill run), which
     * {@code GET /v1/replay/runs} serves; absent: that route answers 404.
     */
    @WithName("results-dir")
    java.util.Optional<java.nio.file.Path> resultsDir();

    /** The lake's query service (deploy/lake-query), which answers {@code POST /v1/sql}. */
    @WithName("lake-query")
    LakeQuery lakeQuery();

    interface LakeQuery {
        /** Its base URL, e.g. http://127.0.0.1:28090; absent: {@code POST /v1/sql} answers 503. */
        java.util.Optional<java.net.URI> url();
    }

    interface Serving {
        /** The {@code internal} role's token that forwarded lookups carry (./streamhouse up writes it). */
        @WithName("internal-token-file")
        java.util.Optional<String> internalTokenFile();

        /**
         * Off only in {@code @QuarkusTest}s: Kafka Streams started inside the Quarkus test class loader fails on
         * nested Avro records (a known trap); the serving path is tested by non-Quarkus tests instead.
         */
        @io.smallrye.config.WithDefault("true")
        boolean enabled();

        /** One id for all api instances: together they share the projections' partitions. */
        @WithName("application-id")
        @io.smallrye.config.WithDefault("streamhouse-serving")
        String applicationId();

        /**
         * A file naming the application id to serve from instead ({@code ./streamhouse replay promote} writes it),
         * read at every start, so a restart of this instance alone switches it to a promoted rebuild.
         */
        @WithName("application-id-file")
        java.util.Optional<java.nio.file.Path> applicationIdFile();

        /** Replicas kept warm on other instances, to answer (stale) while an owner is gone or moving. */
        @WithName("standby-replicas")
        @io.smallrye.config.WithDefault("1")
        int standbyReplicas();

        /** Host other instances use to reach this one (application.server); defaults to quarkus.http.host. */
        @WithName("advertised-host")
        java.util.Optional<String> advertisedHost();

        /**
         * Stream threads of the serving application on this instance (up to the input topics' 6 partitions per
         * instance are useful). Two let one thread process while the other waits on its exactly-once commit.
         */
        @WithName("stream-threads")
        @io.smallrye.config.WithDefault("2")
        int streamThreads();

        @WithName("commit-interval-ms")
        @io.smallrye.config.WithDefault("100")
        long commitIntervalMs();

        /**
         * Latest values of looked-up keys kept decoded per open partition of each serving store (0: lookups read the
         * store each time). Memory: up to this many states per partition and store, a few KB each at most.
         */
        @WithName("cached-keys-per-partition")
        @io.smallrye.config.WithDefault("1000")
        int cachedKeysPerPartition();

        /** How far back asOf reaches (versioned stores' history retention). */
        @WithName("history-retention")
        @io.smallrye.config.WithDefault("P7D")
        java.time.Duration historyRetention();

        /**
         * Segment interval of the versioned stores: all versions of a key within one segment are one RocksDB value,
         * rewritten on each put of that key, and an asOf query reads one value per segment it reaches back over.
         */
        @WithName("history-segment")
        @io.smallrye.config.WithDefault("PT1M")
        java.time.Duration historySegment();

        /**
         * Any other Kafka Streams, consumer or producer property of the serving application, by its Kafka name
         * ({@code streamhouse.serving.streams."producer.linger.ms"=5}): applied over the defaults above. What
         * correctness depends on (application id, bootstrap servers, exactly-once, application server, state
         * directory) cannot be set here; trying is a start-up error.
         */
        @WithName("streams")
        java.util.Map<String, String> streams();
    }

    interface Kafka {
        @WithName("bootstrap-servers")
        String bootstrapServers();
    }

    interface Registry {
        String url();
    }
}
