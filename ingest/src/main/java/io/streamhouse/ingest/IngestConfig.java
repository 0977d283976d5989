package io.streamhouse.ingest;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.time.Duration;
import java.util.Optional;

/** Everything ingest needs to know about its surroundings; set by properties or STREAMHOUSE_* environment variables. */
@ConfigMapping(prefix = "streamhouse")
public interface IngestConfig {
    Kafka kafka();

    @WithName("schema-registry")
    Registry schemaRegistry();

    Tokenization tokenization();

    /** Access control: rate limits, MCP resource metadata (docs/security.md). */
    io.streamhouse.security.http.AccessConfig security();

    /** How long a request waits for the broker's acknowledgement before it is refused with 503. */
    @WithDefault("10s")
    Duration publishTimeout();

    /**
     * How long the producer keeps trying to write an event the broker has not acknowledged (its
     * {@code delivery.timeout.ms}), at least the publish timeout. A request answered 503 leaves its events in the
     * producer for this long: a retry of the same event id meanwhile waits for that write instead of writing a second
     * copy, and its permit stays taken, so a long outage turns new events away with 429 rather than queueing them.
     * Only an event still not acknowledged after this is forgotten, and its retry written again.
     */
    @WithDefault("2m")
    Duration deliveryTimeout();

    /**
     * How long handing an event to the producer may block a worker thread (the producer's {@code max.block.ms}: waiting
     * for partition metadata or buffer space), at most the publish timeout. Short: while the broker is away every
     * request would otherwise hold a worker for the whole publish timeout, and at a few tens of requests a second the
     * pool (200) runs out and requests go unanswered instead of refused with 503 (the restart-broker drill).
     */
    @WithDefault("2s")
    Duration publishBlock();

    /** Most events accepted in one batch request. */
    @WithDefault("500")
    int maxBatch();

    /**
     * Most events of one topic that HTTP requests may have handed to the producer and not yet seen acknowledged (each
     * topic its own bound: telemetry cannot crowd payments out); a request that would exceed it is refused with 429
     * and Retry-After, and nothing of it is written. Must be at least
     * {@link #maxBatch()}, or a full batch could never pass.
     */
    @WithDefault("1000")
    int maxInFlight();

    Dedup dedup();

    Mqtt mqtt();

    interface Kafka {
        @WithName("bootstrap-servers")
        String bootstrapServers();
    }

    interface Registry {
        String url();
    }

    /** The per-instance memory of accepted event ids (see {@code AcceptedEvents}). */
    interface Dedup {
        /** How long after its acceptance a retried event is still recognised. */
        @WithDefault("10m")
        Duration window();

        /** Most event ids remembered; the oldest are forgotten first (an estimated 300-400 bytes each). */
        @WithDefault("100000")
        int maxEntries();
    }

    /** The MQTT telemetry bridge; off unless {@link #url()} is set. */
    interface Mqtt {
        /** e.g. tcp://127.0.0.1:1883 */
        Optional<String> url();

        /** Stable part of the MQTT client id; the instance id is appended. */
        @WithDefault("streamhouse-ingest")
        String clientId();

        /** Distinguishes instances; defaults to the host name (stable across restarts of the same host or pod). */
        Optional<String> instanceId();

        /**
         * What to subscribe to. The default shared subscription spreads the vehicles' messages over all ingest
         * instances instead of giving each instance every message.
         */
        @WithDefault("$share/streamhouse-ingest/fleet/+/telemetry")
        String topicFilter();

        /**
         * false (the default): the broker keeps the session and the unacknowledged QoS 1 messages while the bridge
         * is away and redelivers them. true only for throw-away clients such as tests.
         */
        @WithDefault("false")
        boolean cleanSession();
    }

    Authorize authorize();

    Cdc cdc();

    /** The CDC normalisation topology (shop.cdc.changes → shop.customers, shop.orders) that ingest runs. */
    interface Cdc {
        @WithDefault("true")
        boolean enabled();

        @WithDefault("streamhouse-ingest-cdc")
        @WithName("application-id")
        String applicationId();

        /** Kafka Streams state directory; use a fresh one per broker (state from another cluster breaks Streams). */
        @WithDefault("target/ingest-cdc-state")
        @WithName("state-dir")
        String stateDir();

        @WithDefault("10ms")
        @WithName("commit-interval")
        Duration commitInterval();

        /** The normaliser's OpenLineage run events (docs/lineage.md). */
        Lineage lineage();
    }

    interface Lineage {
        /** Write them to lineage.events (what the api's {@code GET /v1/lineage} reads). */
        @WithDefault("true")
        boolean topic();

        /** Also append them to this file, one JSON event per line; absent: no file. */
        java.util.Optional<java.nio.file.Path> file();

        default io.streamhouse.lineage.LineageOutputs outputs() {
            return new io.streamhouse.lineage.LineageOutputs(topic(), file());
        }
    }

    /** The synchronous authorize endpoint. */
    interface Authorize {
        /** How long a request waits for its decision before the fallback answer, unless it asks for less. */
        @WithDefault("1500ms")
        Duration deadline();

        /** The longest deadline a request may ask for ({@code ?deadlineMs=}). */
        @WithDefault("10s")
        @WithName("max-deadline")
        Duration maxDeadline();

        /** Decisions remembered after they went by, for a retried request whose decision was already made. */
        @WithDefault("100000")
        @WithName("recent-decisions")
        int recentDecisions();

        /**
         * Where this instance reads the answers to its requests: {@code all}, every decision on the decisions topic (any
         * number of instances, no routing; each reads every decision), or {@code partition}, its own partition of the
         * replies topic, which its requests name ({@code payments.transactions.decisions.replies}; each reads its own).
         */
        @WithDefault("all")
        Replies replies();

        /**
         * This instance's partition of the replies topic with {@code replies=partition}: one per instance (the launcher
         * gives {@code ingest-k} k-1). Two instances on one partition still get every answer, and read each other's too.
         */
        @WithDefault("0")
        @WithName("reply-partition")
        int replyPartition();

        enum Replies { ALL, PARTITION }
    }

    interface Tokenization {
        /** HMAC key for card tokens; at least 16 characters. */
        String key();
    }
}
