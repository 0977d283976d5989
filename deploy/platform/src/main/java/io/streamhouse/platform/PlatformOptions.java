package io.streamhouse.platform;

import io.streamhouse.broker.BrokerOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How to start an {@link EmbeddedPlatform}.
 *
 * @param dataDir             root of everything the platform writes: {@code kafka/}, {@code postgres/}, logs
 * @param ephemeral           wipe the data on start and delete it (keeping the logs) on close: tests. False keeps
 *                            topics, records and tables across restarts: the launcher
 * @param kafkaPort           broker client port on 127.0.0.1; 0 picks a free one
 * @param registryPort        schema registry HTTP port on 127.0.0.1; 0 picks a free one
 * @param brokerMaxHeap       {@code -Xmx} of the broker child JVM
 * @param postgresMode        which PostgreSQL to use
 * @param postgresPort        port of the embedded PostgreSQL; 0 picks a free one (ignored for an external server)
 * @param postgresBinariesDir where the embedded PostgreSQL binaries are unpacked; null for
 *                            {@code ${java.io.tmpdir}/embedded-pg}, shared by all runs on the machine
 * @param database            database Streamhouse uses; created on the embedded server if missing (an external
 *                            server's database is the one in its URL)
 * @param schema              schema created in that database if missing
 * @param brokers             Kafka nodes: 1 (the default) runs one broker exactly as before; 3 runs a cluster of three
 *                            KRaft nodes, replication factor 3 and {@code min.insync.replicas=2} ({@code BrokerCluster}),
 *                            client ports {@code kafkaPort}, {@code kafkaPort + 1}, … when it is fixed
 * @param externalKafka       {@code host:port[,host:port…]} of a Kafka cluster the platform uses instead of starting
 *                            its own broker (plaintext, no SASL: e.g. a Testcontainers broker); null, the default,
 *                            starts the broker child JVM(s). {@code kafkaPort}, {@code brokerMaxHeap} and {@code brokers}
 *                            are then unused
 */
public record PlatformOptions(Path dataDir, boolean ephemeral, int kafkaPort, int registryPort, String brokerMaxHeap,
                              PostgresMode postgresMode, int postgresPort, Path postgresBinariesDir,
                              String database, String schema, int brokers, String externalKafka) {

    /** Fixed port of the launcher's broker, what Kafka tools expect by default. */
    public static final int LAUNCHER_KAFKA_PORT = 9092;
    /** Fixed port of the launcher's schema registry (Confluent's default 8081 is taken by ingest). */
    public static final int LAUNCHER_REGISTRY_PORT = 8085;
    public static final String DEFAULT_DATABASE = "streamhouse";
    public static final String DEFAULT_SCHEMA = "streamhouse";

    /**
     * The count of test platforms this JVM has started, kept in the system properties: a Quarkus test JVM loads this
     * class twice (its app's class loader and the plain test classes'), and their platforms may run at the same time.
     * Not under {@code streamhouse.}: the apps' configuration refuses unknown keys of its own root.
     */
    private static final String TEST_RUNS = "io.streamhouse.platform.PlatformOptions.test-runs";
    /** The most Kafka nodes a platform runs on one machine: each is a JVM of {@code brokerMaxHeap} and more. */
    public static final int MAX_BROKERS = 5;
    /** Database and schema names are inlined into DDL, so only plain identifiers are accepted. */
    private static final String IDENTIFIER = "[a-z_][a-z0-9_]{0,62}";
    /** Bootstrap servers as Kafka's clients take them, without a scheme (a Testcontainers broker gives host:port). */
    private static final String BOOTSTRAP = "[A-Za-z0-9._\\[\\]:-]+:\\d{1,5}(,[A-Za-z0-9._\\[\\]:-]+:\\d{1,5})*";

    /** Which PostgreSQL the platform uses. */
    public enum PostgresMode {
        /** {@link #EXTERNAL} when {@value ExternalPostgres#URL_ENV} is set, else {@link #EMBEDDED}. */
        AUTO,
        /** Start PostgreSQL from the zonky binaries. */
        EMBEDDED,
        /** Use the server named by {@value ExternalPostgres#URL_ENV}; fail if it is not set or not logical. */
        EXTERNAL
    }

    public PlatformOptions {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(postgresMode, "postgresMode");
        dataDir = dataDir.toAbsolutePath().normalize();
        postgresBinariesDir = postgresBinariesDir == null ? null : postgresBinariesDir.toAbsolutePath().normalize();
        brokerMaxHeap = brokerMaxHeap == null ? BrokerOptions.DEFAULT_MAX_HEAP : brokerMaxHeap;
        new BrokerOptions(dataDir.resolve("kafka"), 0, false, brokerMaxHeap); // same heap rules as the broker
        if (kafkaPort < 0 || kafkaPort > 65_535 || registryPort < 0 || registryPort > 65_535
                || postgresPort < 0 || postgresPort > 65_535) {
            throw new IllegalArgumentException("ports must be 0..65535, were kafka " + kafkaPort + ", registry " + registryPort
                    + ", postgres " + postgresPort);
        }
        database = database == null ? DEFAULT_DATABASE : database;
        schema = schema == null ? DEFAULT_SCHEMA : schema;
        if (!database.matches(IDENTIFIER)) {
            throw new IllegalArgumentException("database must be a plain lower-case identifier, was " + database);
        }
        if (!schema.matches(IDENTIFIER)) {
            throw new IllegalArgumentException("schema must be a plain lower-case identifier, was " + schema);
        }
        if (brokers < 1 || brokers > MAX_BROKERS) {
            throw new IllegalArgumentException("brokers must be 1.." + MAX_BROKERS + ", was " + brokers);
        }
        if (brokers > 1 && kafkaPort != 0 && kafkaPort + brokers - 1 > 65_535) {
            throw new IllegalArgumentException("the brokers' ports " + kafkaPort + ".." + (kafkaPort + brokers - 1) + " exceed 65535");
        }
        if (externalKafka != null && !externalKafka.matches(BOOTSTRAP)) {
            throw new IllegalArgumentException("externalKafka must be host:port[,host:port...], was " + externalKafka);
        }
    }

    /** As before the cluster option: one broker. */
    public PlatformOptions(Path dataDir, boolean ephemeral, int kafkaPort, int registryPort, String brokerMaxHeap,
                           PostgresMode postgresMode, int postgresPort, Path postgresBinariesDir, String database, String schema) {
        this(dataDir, ephemeral, kafkaPort, registryPort, brokerMaxHeap, postgresMode, postgresPort, postgresBinariesDir,
                database, schema, 1, null);
    }

    /** The same platform with {@code count} Kafka nodes (1: one broker; 3: a cluster). */
    public PlatformOptions withBrokers(int count) {
        return new PlatformOptions(dataDir, ephemeral, kafkaPort, registryPort, brokerMaxHeap, postgresMode, postgresPort,
                postgresBinariesDir, database, schema, count, externalKafka);
    }

    /**
     * Use the Kafka cluster at {@code bootstrapServers} (plaintext) instead of starting a broker; null starts one. The
     * platform then provisions its topics there and starts its schema registry and Connect worker against it.
     */
    public PlatformOptions withExternalKafka(String bootstrapServers) {
        return new PlatformOptions(dataDir, ephemeral, kafkaPort, registryPort, brokerMaxHeap, postgresMode, postgresPort,
                postgresBinariesDir, database, schema, brokers, bootstrapServers);
    }

    /**
     * A fresh, ephemeral platform on free ports, in a new directory under {@code target/streamhouse-platform/} when
     * the working directory is a Maven module (as under surefire/failsafe), else under {@code java.io.tmpdir}.
     */
    public static PlatformOptions forTests() {
        Path base = Files.isDirectory(Path.of("target")) ? Path.of("target") : Path.of(System.getProperty("java.io.tmpdir"));
        Path dir = base.resolve("streamhouse-platform")
                .resolve("run-" + ProcessHandle.current().pid() + "-" + nextTestRun());
        return new PlatformOptions(dir, true, 0, 0, BrokerOptions.DEFAULT_MAX_HEAP, PostgresMode.AUTO, 0, null,
                DEFAULT_DATABASE, DEFAULT_SCHEMA);
    }

    private static Object nextTestRun() {
        // Properties.compute is synchronized on the one Properties object every class loader sees.
        return System.getProperties().compute(TEST_RUNS, (k, v) -> v == null ? "1" : Integer.toString(Integer.parseInt((String) v) + 1));
    }

    /** A persistent platform in {@code dataDir}: the broker on {@value #LAUNCHER_KAFKA_PORT}, data kept. */
    public static PlatformOptions forLauncher(Path dataDir) {
        return new PlatformOptions(dataDir, false, LAUNCHER_KAFKA_PORT, LAUNCHER_REGISTRY_PORT, BrokerOptions.DEFAULT_MAX_HEAP,
                PostgresMode.AUTO, 0, dataDir.resolve("postgres-binaries"), DEFAULT_DATABASE, DEFAULT_SCHEMA);
    }

    public PlatformOptions withKafkaPort(int port) {
        return new PlatformOptions(dataDir, ephemeral, port, registryPort, brokerMaxHeap, postgresMode, postgresPort,
                postgresBinariesDir, database, schema, brokers, externalKafka);
    }

    public PlatformOptions withRegistryPort(int port) {
        return new PlatformOptions(dataDir, ephemeral, kafkaPort, port, brokerMaxHeap, postgresMode, postgresPort,
                postgresBinariesDir, database, schema, brokers, externalKafka);
    }

    public PlatformOptions withBrokerMaxHeap(String maxHeap) {
        return new PlatformOptions(dataDir, ephemeral, kafkaPort, registryPort, maxHeap, postgresMode, postgresPort,
                postgresBinariesDir, database, schema, brokers, externalKafka);
    }

    public PlatformOptions withPostgresMode(PostgresMode mode) {
        return new PlatformOptions(dataDir, ephemeral, kafkaPort, registryPort, brokerMaxHeap, mode, postgresPort,
                postgresBinariesDir, database, schema, brokers, externalKafka);
    }

    public PlatformOptions withPostgresPort(int port) {
        return new PlatformOptions(dataDir, ephemeral, kafkaPort, registryPort, brokerMaxHeap, postgresMode, port,
                postgresBinariesDir, database, schema, brokers, externalKafka);
    }

    /** Null for {@code ${java.io.tmpdir}/embedded-pg}. */
    public PlatformOptions withPostgresBinariesDir(Path dir) {
        return new PlatformOptions(dataDir, ephemeral, kafkaPort, registryPort, brokerMaxHeap, postgresMode, postgresPort,
                dir, database, schema, brokers, externalKafka);
    }

    public PlatformOptions withDataDir(Path dir) {
        return new PlatformOptions(dir, ephemeral, kafkaPort, registryPort, brokerMaxHeap, postgresMode, postgresPort,
                postgresBinariesDir, database, schema, brokers, externalKafka);
    }

    Path kafkaDir() {
        return dataDir.resolve("kafka");
    }

    /**
     * Where a stack keeps its Kafka passwords ({@code KafkaCredentials}): beside the broker's storage, deleted with it by
     * {@code up --fresh}. The launcher points its clients here before it starts the platform.
     */
    public static Path kafkaCredentialsDir(Path platformDataDir) {
        return platformDataDir.resolve("kafka-credentials").toAbsolutePath().normalize();
    }

    Path postgresDir() {
        return dataDir.resolve("postgres");
    }

    Path postgresLog() {
        return dataDir.resolve("postgres.log");
    }
}
