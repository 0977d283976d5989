package io.streamhouse.security.kafka;

/**
 * Who a Kafka client acts as. One value per service of issue #19 item 4 (least privilege needs each service to be
 * told apart), plus the broker itself, the api's own request-path clients, the platform's administration and the benchmarks. The
 * {@link #userName()} is the SASL user name and the stem of the service's password file.
 */
public enum KafkaPrincipal {
    /** The broker itself: inter-broker requests (transaction markers) and its own readiness probe. A super user. */
    BROKER("broker"),
    /** ingest's event log producer, authorize waiter and audit channel. */
    INGEST("ingest"),
    /** The decision topology (the api's Quarkus Kafka Streams application). */
    DECISIONS("decisions"),
    /** The serving projections (the api's ServingStreams). */
    SERVING("serving"),
    /** The api's request-path clients: rule and review writes, the rules bootstrap, alerts, the topic catalog, audit. */
    API("api"),
    /** The CDC normaliser (a Kafka Streams application inside ingest). */
    CDC_NORMALISER("cdc-normaliser"),
    /** The Flink CEP job's sources and sinks. */
    CEP("cep"),
    /** The Kafka Connect worker and, through its prefixed settings, its connectors' clients. */
    CONNECT("connect"),
    /** The schema registry's Kafka store. */
    REGISTRY("registry"),
    /** Replay: backfills, shadow runs, topic reads and its admin. */
    REPLAY("replay"),
    /** Snapshot SQL (lake-query): its admin and the Flink Kafka tables. */
    LAKE_QUERY("lake-query"),
    /** The platform's administration: topic provisioning, lake control, the launcher's demos and audits. */
    PLATFORM("platform"),
    /** The load generator and the benchmarks. */
    LOAD_TESTS("load-tests");

    private final String userName;

    KafkaPrincipal(String userName) {
        this.userName = userName;
    }

    public String userName() {
        return userName;
    }
}
