package io.streamhouse.lakequery;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.flink.actions.Actions;

import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@link LakeMaintenance} every {@link MaintenanceSettings#interval()} in the query service's JVM, one pass at a
 * time (a pass asked for over HTTP waits for one that is running), and keeps the last pass's report. Compaction jobs go
 * to the service's warm MiniCluster, which has one slot more than queries use, so a compaction never waits for a
 * query's slots nor a query for a compaction's.
 */
final class MaintenanceScheduler implements AutoCloseable {

    private final LakeMaintenance maintenance;
    private final MaintenanceSettings settings;
    private final ScheduledExecutorService executor;
    private volatile LakeMaintenance.RunReport last;
    private volatile Instant nextRunAt;

    private MaintenanceScheduler(LakeMaintenance maintenance, MaintenanceSettings settings) {
        this.maintenance = maintenance;
        this.settings = settings;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "streamhouse-lake-maintenance");
            t.setDaemon(true);
            return t;
        });
    }

    static MaintenanceScheduler start(Catalog catalog, Namespace namespace, MaintenanceSettings settings, URI flinkRest) {
        LakeMaintenance maintenance = new LakeMaintenance(catalog, namespace, settings, () -> remoteEnvironment(flinkRest),
                Clock.systemUTC());
        MaintenanceScheduler scheduler = new MaintenanceScheduler(maintenance, settings);
        long period = settings.interval().toMillis();
        scheduler.nextRunAt = Instant.now().plusMillis(period);
        scheduler.executor.scheduleWithFixedDelay(scheduler::runLogged, period, period, TimeUnit.MILLISECONDS);
        System.err.println("lake maintenance on: every " + settings.interval() + ", snapshots older than "
                + settings.snapshotMaxAge() + " expired (newest " + settings.retainLast() + " and the sink's newest commit kept), "
                + "target file size " + settings.targetFileSizeBytes() + " bytes, orphans older than " + settings.orphanMinAge()
                + " deleted; first pass at " + scheduler.nextRunAt);
        return scheduler;
    }

    /** A pass now, after any running one; returns its report. */
    LakeMaintenance.RunReport runNow() throws InterruptedException {
        try {
            return executor.submit(this::runLogged).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(SnapshotSqlEngine.rootMessage(e), e);
        }
    }

    Optional<LakeMaintenance.RunReport> last() {
        return Optional.ofNullable(last);
    }

    Instant nextRunAt() {
        return nextRunAt;
    }

    MaintenanceSettings settings() {
        return settings;
    }

    private LakeMaintenance.RunReport runLogged() {
        LakeMaintenance.RunReport report;
        try {
            report = maintenance.runAll();
        } catch (RuntimeException e) {
            // The catalog could not even list the tables: report it as a pass that failed, and try again next time.
            report = new LakeMaintenance.RunReport(Instant.now(), 0, java.util.List.of(new LakeMaintenance.TableReport(
                    "*", 0, 0, 0, 0, 0, 0, 0, 0, java.util.List.of(), 0, SnapshotSqlEngine.rootMessage(e))));
        }
        last = report;
        nextRunAt = Instant.now().plus(settings.interval());
        System.err.println(report.line());
        return report;
    }

    /**
     * The compaction job ships Iceberg's scan tasks and data files between operators. Flink's Kryo cannot rebuild their
     * byte-buffer maps (column bounds: "this.wrapped is null"), but they are {@code Serializable} and written for Java
     * serialisation: Kryo is told to use it for them and everything they hold.
     */
    static final java.util.List<String> KRYO_AS_JAVA = java.util.List.of(
            "org.apache.iceberg.CombinedScanTask: {type: kryo, kryo-type: default, class: org.apache.flink.api.java.typeutils.runtime.kryo.JavaSerializer}",
            "org.apache.iceberg.ContentFile: {type: kryo, kryo-type: default, class: org.apache.flink.api.java.typeutils.runtime.kryo.JavaSerializer}");

    /** A batch-mode environment that submits to the warm MiniCluster over its REST API, as the SQL engine does. */
    private static StreamExecutionEnvironment remoteEnvironment(URI rest) {
        Configuration conf = new Configuration(Actions.CONFIG);
        conf.set(DeploymentOptions.TARGET, "remote");
        conf.set(RestOptions.ADDRESS, rest.getHost());
        conf.set(RestOptions.PORT, rest.getPort());
        conf.set(PipelineOptions.SERIALIZATION_CONFIG, KRYO_AS_JAVA);
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        env.setParallelism(1);
        return env;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
