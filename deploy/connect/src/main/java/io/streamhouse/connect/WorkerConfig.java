package io.streamhouse.connect;

import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The distributed-mode worker configuration of the child worker. JDK-only (built in the parent).
 *
 * <p>Guarantees ({@code put}): exactly-once source support (KIP-618: a source task's records and its offsets are
 * committed in one Kafka transaction, so a crashed worker neither loses nor repeats a change), internal topics with the
 * broker's default replication (1 on one local broker, 3 on a cluster) and compacted, the worker's REST server only on 127.0.0.1, plugins found through
 * the service loader (seconds to start instead of half a minute of classpath scanning), and our wire-format
 * converter for keys and values. Tunables are fitted for fast failover on one machine: a worker killed with
 * {@code kill -9} is noticed after {@code session.timeout.ms} and its tasks reassigned at once
 * ({@code scheduled.rebalance.max.delay.ms=0}).
 */
public final class WorkerConfig {

    /** By name, not by class: this class is loaded by parents that have no Connect API on their classpath. */
    static final String CONVERTER = "io.streamhouse.connect.RegistryAvroConverter";

    /** A replication factor that asks for the broker's {@code default.replication.factor} (KIP-464). */
    public static final String BROKER_DEFAULT_REPLICATION = "-1";

    /** How long a killed worker's open transaction blocks its successor; see {@link #of}. */
    static final String TRANSACTION_TIMEOUT_MS = "10000";

    private WorkerConfig() {
    }

    public static Map<String, String> of(ConnectOptions options, int restPort) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("group.id", options.groupId());
        p.put("config.storage.topic", options.configTopic());
        p.put("offset.storage.topic", options.offsetTopic());
        p.put("status.storage.topic", options.statusTopic());
        // -1: the broker's default.replication.factor, so the internal topics follow the cluster the worker runs on.
        p.put("config.storage.replication.factor", BROKER_DEFAULT_REPLICATION);
        p.put("offset.storage.replication.factor", BROKER_DEFAULT_REPLICATION);
        p.put("status.storage.replication.factor", BROKER_DEFAULT_REPLICATION);
        p.put("offset.storage.partitions", "1");
        p.put("status.storage.partitions", "1");
        p.put("exactly.once.source.support", "enabled");
        p.put("listeners", "http://127.0.0.1:" + restPort);
        p.put("rest.advertised.host.name", "127.0.0.1");
        p.put("rest.advertised.port", Integer.toString(restPort));
        p.put("plugin.discovery", "service_load");
        p.put("key.converter", CONVERTER);
        p.put("value.converter", CONVERTER);
        p.put("key.converter.schema.registry.url", options.registryUrl());
        p.put("value.converter.schema.registry.url", options.registryUrl());
        p.put("topic.creation.enable", "true");
        // Connectors may tune their clients but not change their credentials (NoCredentialOverrides).
        p.put("connector.client.config.override.policy", "io.streamhouse.connect.NoCredentialOverrides"); // a string: this class runs in the parent, without connect-api

        p.put("scheduled.rebalance.max.delay.ms", "0");
        p.put("session.timeout.ms", "6000");
        p.put("heartbeat.interval.ms", "2000");
        p.put("rebalance.timeout.ms", "20000");
        // Also how often an idle sink task's flush() runs: the Iceberg sink answers a commit request only inside
        // put() or flush(), so this bounds how long a commit waits for an idle task (STACK.md: 100-250 ms).
        p.put("offset.flush.interval.ms", "250");
        p.put("task.shutdown.graceful.timeout.ms", "5000");
        // A worker killed mid-transaction leaves its transaction open on the offsets topic (the source task's
        // producer) or the config topic (the leader's). The worker that replaces it reads both read_committed before
        // it starts anything, so it waits until the broker aborts that transaction: after the producer's transaction
        // timeout, 60 s by default. A poll's transaction lasts milliseconds, so 10 s bounds the failover instead.
        // Unprefixed: the worker's own producers (config topic); "producer.": the source tasks' producers.
        p.put("transaction.timeout.ms", TRANSACTION_TIMEOUT_MS);
        p.put("producer.transaction.timeout.ms", TRANSACTION_TIMEOUT_MS);
        // The bootstrap servers and the security settings of the worker's clients and its connectors' clients.
        return KafkaClientSettings.forPrincipal(KafkaPrincipal.CONNECT).connectWorker(options.bootstrapServers(), p);
    }
}
