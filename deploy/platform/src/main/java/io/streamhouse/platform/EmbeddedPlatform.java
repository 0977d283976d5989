package io.streamhouse.platform;

import io.streamhouse.broker.BrokerCluster;
import io.streamhouse.broker.BrokerMain;
import io.streamhouse.broker.BrokerOptions;
import io.streamhouse.broker.BrokerProcess;
import io.streamhouse.supervisor.LocalFiles;
import io.streamhouse.connect.CdcConnector;
import io.streamhouse.connect.ConnectOptions;
import io.streamhouse.connect.ConnectProcess;
import io.streamhouse.connect.LakeConnector;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.lake.LakeTablesProcess;
import io.streamhouse.lineage.LineageOutputs;
import io.streamhouse.lineage.LineageRun;
import io.streamhouse.platform.PlatformOptions.PostgresMode;
import io.streamhouse.registry.RegistryConfig;
import io.streamhouse.registry.SchemaRegistryServer;
import io.streamhouse.security.kafka.KafkaClientSettings;
import io.streamhouse.security.kafka.KafkaPrincipal;
import io.streamhouse.supervisor.Supervisor;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything Streamhouse needs on one machine: a Kafka broker (child JVM) or a cluster of them
 * ({@link PlatformOptions#brokers()}), PostgreSQL with logical decoding, the schema registry, and the catalog's topics.
 * On a cluster, the topics, the registry's topic and the lake's control topics get the cluster's replication factor
 * ({@link BrokerCluster#replicationFactor()}) and the ACLs are applied once, through any node.
 *
 * <p>Order: broker → PostgreSQL → schema registry (it stores schemas in the broker) → topics. {@link #close()} stops in reverse order,
 * is idempotent and thread-safe. If a step fails, the steps already started are stopped before the exception leaves
 * {@link #start}. Each step's duration is logged and available from {@link #startTimes()}.
 *
 * <p>Whoever starts a platform closes it (the launcher and {@link SharedPlatform} do so from a shutdown hook), so
 * that the pieces stop in order; the broker's and PostgreSQL's own shutdown hooks are released for that reason.
 * Cleanup still does not depend on {@link #close()}: if this JVM ends without it, even by {@code kill -9}, the
 * broker exits on stdin EOF and the PostgreSQL watchdog stops the postmaster. See {@link BrokerProcess} and
 * {@link ZonkyPostgres}.
 *
 * <p>With {@link PlatformOptions#externalKafka()} the platform starts no broker: everything else (PostgreSQL, registry,
 * topics, Connect worker, connectors) starts as always, against that cluster, which the platform neither stops nor
 * cleans. The container tests (e2e-containers) run the end-to-end flows this way.
 */
public final class EmbeddedPlatform implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPlatform.class);

    private final PlatformOptions options;
    private final Map<String, String> environment;
    private final Supervisor supervisor;
    /** What runs, in start order; closed from the end. */
    private final Deque<Step> started = new ArrayDeque<>();
    private final Map<String, Duration> startTimes = Collections.synchronizedMap(new LinkedHashMap<>());
    private BrokerCluster broker;
    /** The broker's or the external cluster's bootstrap servers, set by the first start step. */
    private volatile String bootstrap;
    /** Replicas of each topic the platform creates: the cluster's; 1 on an external Kafka (a single test broker). */
    private volatile int replicationFactor = 1;
    /** Null until {@link #postgres()} first needs it (at start for an external server). */
    private volatile PostgresServer postgres;
    /** Held while PostgreSQL starts, and by {@link #close()} before anything stops, so no start outlives a close. */
    private final Object postgresLock = new Object();
    private SchemaRegistryServer registry;
    // SCHEMA REGISTRY (wired in after merge): private SchemaRegistryServer registry;
    private volatile boolean closed;
    private boolean kafkaSecured;
    private volatile ConnectProcess connect;
    /** Workers 2.. of the same Connect group ({@link #connectWorkers(int)}); they share the connectors' tasks. */
    private final List<ConnectProcess> moreWorkers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private CdcConnector.Source cdcSource;
    private boolean cdcRunning;
    private boolean lakeRunning;
    private boolean lakeTablesEnsured;
    private volatile String lakeCatalogSchema;
    /** The OpenLineage run of each connector this platform registered, by connector name. */
    private final Map<String, LineageRun> connectorRuns = new LinkedHashMap<>();

    private record Step(String name, AutoCloseable resource) {
    }

    private EmbeddedPlatform(PlatformOptions options, Map<String, String> environment, Supervisor supervisor) {
        this.options = options;
        this.environment = environment;
        this.supervisor = supervisor;
    }

    /** Starts everything, or nothing: on failure what was started is stopped again before the exception leaves. */
    public static EmbeddedPlatform start(PlatformOptions options) {
        return start(options, System.getenv(), Supervisor.unsupervised());
    }

    /**
     * As {@link #start(PlatformOptions)}, with the broker and the Connect worker under {@code supervisor} (the
     * launcher's, which restarts them when they die); PostgreSQL and the schema registry are not child JVMs.
     */
    public static EmbeddedPlatform start(PlatformOptions options, Supervisor supervisor) {
        return start(options, System.getenv(), supervisor);
    }

    /**
     * As {@link #start(PlatformOptions)}, reading {@value ExternalPostgres#URL_ENV} and friends from {@code environment}
     * instead of this process's: a test that starts its own PostgreSQL server (a container) names it here.
     */
    public static EmbeddedPlatform start(PlatformOptions options, Map<String, String> environment) {
        return start(options, environment, Supervisor.unsupervised());
    }

    private static EmbeddedPlatform start(PlatformOptions options, Map<String, String> environment, Supervisor supervisor) {
        EmbeddedPlatform platform = new EmbeddedPlatform(options, Map.copyOf(environment), supervisor);
        long t0 = System.nanoTime();
        try {
            if (options.ephemeral()) {
                LocalFiles.deleteRecursively(options.dataDir());
            }
            java.nio.file.Files.createDirectories(options.dataDir());
            platform.startSteps();
        } catch (IOException | RuntimeException e) {
            platform.close();
            throw e instanceof RuntimeException re ? re
                    : new IllegalStateException("cannot prepare " + options.dataDir(), e);
        }
        Duration total = Duration.ofNanos(System.nanoTime() - t0);
        platform.startTimes.put("total", total);
        LOG.info("Streamhouse platform up in {} ms: {} (data {})", total.toMillis(), platform.startTimes, options.dataDir());
        return platform;
    }

    private void startSteps() {
        // The platform stops its pieces in order (close()); their own shutdown hooks would race that.
        // A long-lived (launcher) broker gets the full JIT, as the launcher's apps do: under load a C1-only broker
        // took most of a core of this 2-core machine (docs/benchmarks.md). JitChoice says when to opt out.
        boolean fullJit = !options.ephemeral() && JitChoice.fullJit();
        if (options.externalKafka() != null) {
            useExternalKafka();
        } else {
            startBroker(fullJit);
        }
        if (externalPostgres()) {
            postgres(); // a server of the user's: one that cannot serve (no logical decoding, unreachable) fails the start
        }
        registry = step("schema registry", () -> SchemaRegistryServer.start(
                RegistryConfig.of(bootstrap).withPort(options.registryPort())
                        .withReplicationFactor((short) replicationFactor)));
        step("topics", () -> {
            TopicProvisioner.ensure(bootstrap, Topics.allWithDeadLetters(), replicationFactor);
            return null;
        });
    }

    /** The broker child JVM, and with SASL configured the ACLs of {@link KafkaAcls}. */
    private void startBroker(boolean fullJit) {
        // The broker authenticates and authorizes exactly when this process's clients log in (KafkaClientSettings): the
        // launcher turns that on, a test JVM's shared platform leaves it off.
        Optional<Path> credentials = KafkaClientSettings.saslConfigured() ? KafkaClientSettings.credentialsDir() : Optional.empty();
        BrokerOptions brokerOptions = new BrokerOptions(options.kafkaDir(), options.kafkaPort(), false, options.brokerMaxHeap(), fullJit,
                credentials.orElse(null));
        broker = step(options.brokers() == 1 ? "kafka broker" : "kafka cluster",
                () -> BrokerCluster.start(brokerOptions, options.brokers(), supervisor));
        bootstrap = broker.bootstrapServers();
        replicationFactor = broker.replicationFactor();
        kafkaSecured = brokerOptions.secured();
        if (brokerOptions.secured()) {
            // On every start, before anything else logs in: a grant added to or removed from the table takes effect with
            // the next start.
            step("kafka acls", () -> {
                try (Admin admin = Admin.create(KafkaClientSettings.forPrincipal(KafkaPrincipal.PLATFORM).admin(bootstrap))) {
                    KafkaAcls.Applied applied = KafkaAcls.apply(admin);
                    LOG.info("Kafka ACLs: {} in force ({} created, {} revoked)", applied.total(), applied.created(), applied.deleted());
                }
                return null;
            });
        }
        broker.releaseShutdownHook();
    }

    /**
     * {@link PlatformOptions#externalKafka()}: no broker of ours; the cluster must answer before anything else starts,
     * so an unreachable or misspelt address fails here, naming it, instead of in the registry's first read. Plaintext
     * only: with SASL configured this process's clients would log in to a cluster that has none of our users or ACLs.
     */
    private void useExternalKafka() {
        String servers = options.externalKafka();
        if (KafkaClientSettings.saslConfigured()) {
            throw new IllegalStateException("an external Kafka (" + servers + ") is used without SASL, but this process's"
                    + " Kafka clients are configured to log in: unset the Kafka credentials or let the platform start its broker");
        }
        step("external kafka", () -> {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000))) {
                String clusterId = admin.describeCluster().clusterId().get(30, java.util.concurrent.TimeUnit.SECONDS);
                LOG.info("using external Kafka {} (cluster {})", servers, clusterId);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException("external Kafka " + servers + " did not answer within 30 s: " + e, e);
            }
            return null;
        });
        bootstrap = servers;
    }

    /** Whether the broker requires SASL/SCRAM logins and authorizes every request against {@link KafkaAcls}. */
    public boolean kafkaSecured() {
        return kafkaSecured;
    }

    /** Runs one start step, records its duration and remembers what to close. */
    private <T extends AutoCloseable> T step(String name, StartStep<T> action) {
        long t0 = System.nanoTime();
        LOG.info("starting {}", name);
        T resource;
        try {
            resource = action.start();
        } catch (Exception e) {
            throw e instanceof RuntimeException re ? re : new IllegalStateException("starting " + name + " failed", e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        startTimes.put(name, took);
        if (resource != null) {
            started.push(new Step(name, resource));
        }
        LOG.info("started {} in {} ms", name, took.toMillis());
        return resource;
    }

    @FunctionalInterface
    private interface StartStep<T> {
        T start() throws Exception;
    }

    /** Whether PostgreSQL is a server of the user's ({@value ExternalPostgres#URL_ENV}) rather than embedded. */
    private boolean externalPostgres() {
        PostgresMode mode = options.postgresMode();
        return mode == PostgresMode.EXTERNAL
                || mode == PostgresMode.AUTO && ExternalPostgres.fromEnvironment(environment).isPresent();
    }

    /**
     * PostgreSQL with the Streamhouse schema and the shop's migrations applied. An embedded server starts on the first
     * call (CDC, the lake's catalog, a test's own use): most test platforms use only Kafka and the registry, and an
     * embedded start (initdb, the postmaster, the migrations) costs seconds of CPU each time.
     */
    public PostgresServer postgres() {
        PostgresServer p = postgres;
        if (p != null) {
            return p;
        }
        synchronized (postgresLock) {
            if (postgres == null) {
                if (closed) {
                    throw new IllegalStateException("the platform is closed: " + options.dataDir());
                }
                PostgresServer server = step("postgresql", this::startPostgres);
                if (server instanceof ZonkyPostgres embedded) {
                    embedded.releaseShutdownHook();
                }
                step("postgresql schema", () -> {
                    createSchemaIfMissing(server, options.schema());
                    return null;
                });
                step("shop migrations", () -> {
                    LOG.info("applied {} shop schema migration(s)", ShopDatabase.migrate(server));
                    return null;
                });
                postgres = server;
            }
            return postgres;
        }
    }

    private PostgresServer startPostgres() {
        PostgresMode mode = options.postgresMode();
        if (mode != PostgresMode.EMBEDDED) {
            Optional<ExternalPostgres> external = ExternalPostgres.fromEnvironment(environment);
            if (external.isPresent()) {
                LOG.info("using external PostgreSQL {}", external.get());
                return external.get();
            }
            if (mode == PostgresMode.EXTERNAL) {
                throw new IllegalStateException("postgresMode EXTERNAL but " + ExternalPostgres.URL_ENV + " is not set");
            }
        }
        return ZonkyPostgres.start(new ZonkyPostgres.Settings(options.postgresDir(), options.ephemeral(),
                options.postgresPort(), options.postgresBinariesDir(), options.postgresLog(), options.database()));
    }

    private static void createSchemaIfMissing(PostgresServer server, String schema) throws SQLException {
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            // Validated by PlatformOptions: a plain identifier, safe to inline.
            s.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
        }
    }

    /**
     * Change data capture, started on first use (it costs a JVM of ~250 MB and a few seconds, which most tests do not
     * need): a Kafka Connect worker (distributed mode, exactly-once source) in a child JVM, with the Debezium
     * connector {@value CdcConnector#DEFAULT_NAME} capturing the shop schema into {@code shop.cdc.changes}. Returns
     * once the connector's task runs and holds its replication slot: every commit from then on is captured. The worker is stopped with the platform, before the broker.
     *
     * <p>An ephemeral platform (tests) names its replication slot and publication after this JVM and run, so test
     * JVMs sharing an external PostgreSQL do not take each other's slot, and drops both on close: an abandoned slot
     * would hold WAL for ever.
     */
    public synchronized ConnectProcess cdc() {
        if (cdcRunning && connect != null && !connect.isStopped()) {
            return connect; // running, or being restarted by the supervisor
        }
        if (cdcSource == null) {
            String suffix = options.ephemeral() ? "_" + ProcessHandle.current().pid() + "_" + Integer.toHexString(System.identityHashCode(this)) : "";
            PostgresServer postgres = postgres();
            cdcSource = new CdcConnector.Source(postgres.jdbcUrl(), postgres.user(), postgres.password(),
                    CdcConnector.DEFAULT_SLOT + suffix, CdcConnector.DEFAULT_PUBLICATION + suffix);
            CdcConnector.Source source = cdcSource;
            // Closed after the worker (steps close newest first) and before PostgreSQL.
            step("replication slot cleanup", () -> (AutoCloseable) () -> {
                if (options.ephemeral()) {
                    LOG.info("dropping replication slot {} and publication {}: {}", source.slotName(), source.publicationName(),
                            ShopDatabase.dropCapture(postgres, source) ? "slot dropped" : "no inactive slot of that name");
                }
            });
        }
        worker();
        Map<String, String> connector = new LinkedHashMap<>(CdcConnector.config(cdcSource, registry.url().toString()));
        if (options.ephemeral()) {
            // A test platform on a shared external PostgreSQL must not re-read earlier runs' rows as a snapshot:
            // capture from the slot's creation on. The launcher keeps Debezium's default (initial snapshot).
            connector.put("snapshot.mode", "no_data");
        }
        connect.putConnector(CdcConnector.DEFAULT_NAME, connector);
        awaitConnectorRun(CdcConnector.DEFAULT_NAME, connector);
        try {
            ShopDatabase.awaitSlotActive(postgres(), cdcSource.slotName(), Duration.ofSeconds(60));
        } catch (SQLException e) {
            throw new IllegalStateException("CDC did not start capturing: " + e.getMessage(), e);
        }
        cdcRunning = true;
        return connect;
    }

    /**
     * Waits for the connector just registered to run, as one OpenLineage run of it (docs/lineage.md): the
     * platform registers the connectors, so it emits their runs from the configuration it registered
     * ({@link ConnectorLineage}). START once registered, FAIL if it does not come to RUNNING; COMPLETE when the
     * platform removes it, stops the worker or closes. A connector registered again ends its previous run first.
     */
    private void awaitConnectorRun(String name, Map<String, String> config) {
        endConnectorRun(name, null);
        LineageRun run = LineageRun.of(ConnectorLineage.of(name, config, bootstrap, connect.workerVersion()),
                bootstrap, lineageOutputs(), Clock.systemUTC(),
                KafkaClientSettings.forPrincipal(KafkaPrincipal.PLATFORM).security());
        connectorRuns.put(name, run);
        run.start();
        try {
            connect.awaitRunning(name, Duration.ofSeconds(60));
        } catch (RuntimeException e) {
            endConnectorRun(name, e);
            throw e;
        }
    }

    /** Ends the connector's run, if it has one: FAIL with {@code failure}, or COMPLETE when it is null. */
    private void endConnectorRun(String name, Exception failure) {
        LineageRun run = connectorRuns.remove(name);
        if (run != null) {
            if (failure != null) {
                run.fail("connector " + name + " did not run: " + failure.getMessage(), failure);
            }
            run.close();
        }
    }

    private void endConnectorRuns() {
        for (String name : List.copyOf(connectorRuns.keySet())) {
            endConnectorRun(name, null);
        }
    }

    /**
     * The connectors' run events go to {@code lineage.events}, and for a lasting platform (the launcher's) also to
     * {@code <data dir>/lineage/openlineage-events.jsonl}.
     */
    private LineageOutputs lineageOutputs() {
        return new LineageOutputs(true, options.ephemeral() ? Optional.empty()
                : Optional.of(options.dataDir().resolve("lineage").resolve("openlineage-events.jsonl")));
    }

    /** The Kafka Connect worker both {@link #cdc()} and {@link #lake()} run in, started on first use. */
    private ConnectProcess worker() {
        if (connect == null || connect.isStopped()) {
            cdcRunning = false;
            lakeRunning = false;
            connect = step("kafka connect", () -> ConnectProcess.start(new ConnectOptions(options.dataDir().resolve("connect"),
                    bootstrap, registry.url().toString(), 0, null, null), supervisor));
            connect.releaseShutdownHook();
        }
        return connect;
    }

    /**
     * The Connect cluster of {@code count} workers in one group (1..3): the first is {@link #cdc()}'s and
     * {@link #lake()}'s worker (started if need be), the others components {@code connect-2}, {@code connect-3} with
     * data directories of their own. Joining workers rebalance the connectors' tasks among all; a killed worker's
     * tasks move to the others after its session times out ({@code WorkerConfig}). Idempotent.
     */
    public synchronized List<ConnectProcess> connectWorkers(int count) {
        if (count < 1 || count > 3) {
            throw new IllegalArgumentException("Connect workers must be 1..3, was " + count);
        }
        ConnectProcess first = worker();
        for (int k = moreWorkers.size() + 2; k <= count; k++) {
            String component = ConnectProcess.component(k);
            Path dir = options.dataDir().resolve(component);
            ConnectProcess extra = step("kafka connect " + k, () -> ConnectProcess.start(new ConnectOptions(dir, bootstrap,
                    registry.url().toString(), 0, null, null), supervisor, component));
            extra.releaseShutdownHook();
            moreWorkers.add(extra);
        }
        List<ConnectProcess> all = new ArrayList<>();
        all.add(first);
        all.addAll(moreWorkers.subList(0, count - 1));
        return all;
    }

    /**
     * The lake, started on first use: every landed topic's Iceberg table created ahead (in a short child JVM, from the
     * Avro schemas), then the Iceberg sink {@value LakeConnector#NAME} in the Kafka Connect worker, landing each
     * topic in its table exactly once. Returns once the sink completed a commit round (task, control topic,
     * coordinator and catalog all work). See {@link LakeConnector} for what
     * it guarantees and {@link #lakeCatalog()} for where the tables are.
     */
    public synchronized ConnectProcess lake() {
        if (lakeRunning && connect != null && !connect.isStopped()) {
            return connect;
        }
        Map<String, String> catalog = lakeCatalog();
        if (!lakeTablesEnsured) {
            step("lake tables", () -> {
                LOG.info("lake tables: {}", LakeTablesProcess.ensureTables(catalog, options.dataDir().resolve("lake-tables")));
                return null;
            });
            lakeTablesEnsured = true;
        }
        String clusterId = LakeControl.clusterId(bootstrap);
        LakeConnector.Settings settings = LakeConnector.settings(catalog, bootstrap,
                registry.url().toString(), clusterId);
        if (LakeControl.prepare(bootstrap, settings.controlTopic())) {
            LOG.info("seeded {} at offset 0 of {}", LakeConnector.coordinatorGroup(), settings.controlTopic());
        }
        long committedBefore = LakeControl.coordinatorOffset(bootstrap, settings.controlTopic());
        worker();
        Map<String, String> lakeConfig = LakeConnector.config(settings);
        connect.putConnector(LakeConnector.NAME, lakeConfig);
        awaitConnectorRun(LakeConnector.NAME, lakeConfig);
        ConnectProcess worker = connect;
        LakeControl.awaitCommitPast(bootstrap, settings.controlTopic(), committedBefore, Duration.ofSeconds(90),
                () -> !worker.isStopped());
        lakeRunning = true;
        return connect;
    }

    /**
     * The lake's Iceberg catalog properties, the one place they are built: {@code JdbcCatalog} (schema version V1)
     * on the platform's PostgreSQL, warehouse {@link #lakeWarehouse()}. Load it with Iceberg's
     * {@code CatalogUtil.buildIcebergCatalog(LakeNames.CATALOG, lakeCatalog(), hadoopConf)}. An ephemeral platform
     * keeps its catalog rows in a PostgreSQL schema of its own, so test JVMs sharing an external server do not see
     * each other's tables.
     */
    public Map<String, String> lakeCatalog() {
        // Not under the platform's lock: lake() and cdc() hold it while their connectors start, and a caller that only
        // needs the catalog (the query service's start) must not wait for them.
        String schema = lakeCatalogSchema;
        if (schema == null && options.ephemeral()) {
            schema = ensureLakeCatalogSchema();
        }
        Map<String, String> c = new LinkedHashMap<>();
        c.put("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog");
        PostgresServer postgres = postgres();
        String url = postgres.jdbcUrl();
        if (schema != null) {
            url = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        }
        c.put("uri", url);
        c.put("jdbc.user", postgres.user() == null ? "" : postgres.user());
        c.put("jdbc.password", postgres.password() == null ? "" : postgres.password());
        c.put("jdbc.schema-version", "V1");
        c.put("warehouse", lakeWarehouse().toUri().toString());
        return Map.copyOf(c);
    }

    private synchronized String ensureLakeCatalogSchema() {
        if (lakeCatalogSchema == null) {
            String schema = "lake_" + ProcessHandle.current().pid() + "_" + Integer.toHexString(System.identityHashCode(this));
            step("lake catalog schema", () -> {
                PostgresServer postgres = postgres();
                createSchemaIfMissing(postgres, schema);
                return (AutoCloseable) () -> dropSchema(postgres, schema);
            });
            lakeCatalogSchema = schema;
        }
        return lakeCatalogSchema;
    }

    /**
     * Where the lake's data and metadata files are: {@code <data dir>/../lake} ({@code .streamhouse/lake} for the
     * launcher, beside the platform's own directory), or {@code <data dir>/lake} for an ephemeral platform.
     */
    public Path lakeWarehouse() {
        Path dir = options.ephemeral() || options.dataDir().getParent() == null
                ? options.dataDir().resolve("lake") : options.dataDir().getParent().resolve("lake");
        return dir.toAbsolutePath().normalize();
    }

    private static void dropSchema(PostgresServer server, String schema) throws SQLException {
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            // Generated by lakeCatalog(): a plain identifier, safe to inline.
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    /**
     * Stops the Connect worker and drops the CDC replication slot and publication (what
     * {@code ./streamhouse down --purge} asks for): an abandoned slot holds WAL for ever. Changes made while nothing
     * captures are then not captured later. {@link #cdc()} starts capturing again, from a new slot.
     *
     * @return whether a slot was dropped (false: CDC never ran, or the slot was gone already)
     */
    public synchronized boolean stopCdcAndDropCapture() throws SQLException {
        if (cdcSource == null) {
            return false;
        }
        endConnectorRuns();
        // Every worker of the group: one left running would take the CDC task over and keep the slot active.
        moreWorkers.forEach(ConnectProcess::close);
        if (connect != null) {
            connect.close();
        }
        return ShopDatabase.dropCapture(postgres(), cdcSource);
    }

    /**
     * Removes the lake's connector from the running Connect worker, if it has one: a worker keeps its connectors in
     * its config topic, so one registered by an earlier run resumes with the worker unless removed.
     *
     * @return whether a connector was removed
     */
    public synchronized boolean stopLake() {
        lakeRunning = false;
        endConnectorRun(LakeConnector.NAME, null);
        if (connect == null || connect.isStopped()) {
            return false;
        }
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            connect.restUrl().resolve("/connectors/" + LakeConnector.NAME)).timeout(Duration.ofSeconds(30))
                    .DELETE().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 404) {
                return false;
            }
            if (response.statusCode() / 100 != 2) {
                throw new IllegalStateException("Connect refused to remove connector " + LakeConnector.NAME + ": "
                        + response.statusCode() + " " + response.body());
            }
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reach the Connect worker at " + connect.restUrl(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * The Kafka Connect worker, while one runs ({@link #cdc()} or {@link #lake()} started it). Not synchronized: it
     * answers while {@link #lake()} waits for the sink's first commit.
     */
    public Optional<ConnectProcess> connectWorker() {
        ConnectProcess current = connect;
        return current != null && !current.isStopped() ? Optional.of(current) : Optional.empty();
    }

    /** The slot and publication the CDC connector uses, once {@link #cdc()} ran. */
    public Optional<CdcConnector.Source> cdcSource() {
        return Optional.ofNullable(cdcSource);
    }

    /** {@code host:port} of the Kafka broker; every node's, comma-separated, on a cluster. */
    public String bootstrapServers() {
        return bootstrap;
    }

    /** The schema registry's base URL (Confluent REST API). */
    public URI schemaRegistryUrl() {
        return registry.url();
    }

    public PlatformOptions options() {
        return options;
    }

    /** Start duration per step, in start order, plus "total". */
    public Map<String, Duration> startTimes() {
        return Collections.unmodifiableMap(startTimes);
    }

    /** The Kafka node(s): their PIDs, a node to kill, the leader of a partition. */
    public BrokerCluster kafka() {
        return broker;
    }

    /** Processes this platform started and must stop: the broker JVM(s) and, when embedded, the postmaster. */
    public List<ProcessHandle> processes() {
        List<ProcessHandle> processes = new ArrayList<>();
        if (broker != null) {
            broker.nodes().forEach(n -> n.supervised().processHandle().ifPresent(processes::add));
        }
        if (connect != null && connect.isAlive()) {
            connect.supervised().processHandle().ifPresent(processes::add);
        }
        moreWorkers.stream().filter(ConnectProcess::isAlive).forEach(w -> w.supervised().processHandle().ifPresent(processes::add));
        if (postgres instanceof ZonkyPostgres zonky) {
            ProcessHandle.of(zonky.pid()).ifPresent(processes::add);
        }
        return processes;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Stops what was started, newest first; deletes the data (not the logs) when ephemeral. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        synchronized (postgresLock) {
            closed = true; // a PostgreSQL start under way ends first; none begins after
        }
        endConnectorRuns(); // while the broker still takes their COMPLETE events
        if (options.ephemeral()) {
            // Their data is deleted below: a clean stop (the broker's controlled shutdown and log flush, the worker's
            // last offset commits) writes what nobody reads. At the end of ReplayIT's test JVM it took 10.6 s (broker)
            // and 4.9 s (Connect) at load average ~30; kill -9 returns once each has exited. Connect first: it talks
            // to the broker.
            long t0 = System.nanoTime();
            if (connect != null) {
                connect.kill();
            }
            moreWorkers.forEach(ConnectProcess::kill);
            if (broker != null) {
                broker.killAndStop();
            }
            LOG.info("killed the ephemeral broker and Connect worker in {} ms", Duration.ofNanos(System.nanoTime() - t0).toMillis());
        }
        while (!started.isEmpty()) {
            Step step = started.pop();
            long t0 = System.nanoTime();
            try {
                step.resource().close();
                LOG.info("stopped {} in {} ms", step.name(), Duration.ofNanos(System.nanoTime() - t0).toMillis());
            } catch (Exception e) {
                LOG.warn("stopping {} failed", step.name(), e);
            }
        }
        if (options.ephemeral()) {
            long t0 = System.nanoTime();
            try {
                LocalFiles.deleteRecursively(options.kafkaDir().resolve(BrokerMain.KRAFT_DIR));
                for (int node = 1; node <= options.brokers() && options.brokers() > 1; node++) {
                    LocalFiles.deleteRecursively(options.kafkaDir().resolve("node-" + node).resolve(BrokerMain.KRAFT_DIR));
                }
                LocalFiles.deleteRecursively(options.postgresDir());
                LOG.info("deleted the ephemeral data in {} ms", Duration.ofNanos(System.nanoTime() - t0).toMillis());
            } catch (IOException e) {
                LOG.warn("could not delete ephemeral data in {}", options.dataDir(), e);
            }
        }
    }

    @Override
    public String toString() {
        return "EmbeddedPlatform[kafka=" + (bootstrap == null ? "-" : bootstrap)
                + ", postgres=" + (postgres == null ? "-" : postgres.jdbcUrl()) + ", closed=" + closed + "]";
    }
}
