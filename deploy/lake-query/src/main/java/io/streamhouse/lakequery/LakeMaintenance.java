package io.streamhouse.lakequery;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ReachableFileUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.actions.RewriteDataFilesActionResult;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.actions.Actions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.FileSystemWalker;
import org.apache.iceberg.util.SnapshotUtil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One maintenance pass over every table of a namespace, with Iceberg's own operations: the Flink batch
 * {@code RewriteDataFilesAction} (compaction), core {@code expireSnapshots()} (which also deletes the files only
 * expired snapshots referenced), and an orphan clean-up built on core's {@code FileSystemWalker} and
 * {@code ReachableFileUtil}. Each table is done on its own; a failure is reported for that table and the others go on.
 *
 * <p>Guarantees towards the Iceberg Kafka Connect sink, whose exactly-once rests on its commit bookkeeping: its
 * coordinator finds the control-topic offsets it last committed by walking the ancestors of the current snapshot to
 * the first one whose summary holds {@value #SINK_OFFSETS_PREFIX}{@code <control topic>.<group>}, and checks them again
 * when it commits. So (1) expiry always keeps the newest ancestor that carries those offsets and every snapshot above
 * it (compaction snapshots do not carry them); (2) compaction only replaces files (a {@code RewriteFiles} validated
 * from its starting snapshot), so concurrent sink appends commit on top of it or it retries; (3) only files older than
 * {@link MaintenanceSettings#orphanMinAge()} are orphan candidates, so a file the sink has written but not yet
 * committed is never deleted while the sink runs.
 */
public final class LakeMaintenance {

    /** Summary key prefix of the sink's commits ({@code kafka.connect.offsets.<control topic>.<group>}). */
    public static final String SINK_OFFSETS_PREFIX = "kafka.connect.offsets.";

    private static final System.Logger LOG = System.getLogger(LakeMaintenance.class.getName());

    private final Catalog catalog;
    private final Namespace namespace;
    private final MaintenanceSettings settings;
    private final Supplier<StreamExecutionEnvironment> rewriteEnvironment;
    private final Clock clock;

    /**
     * @param rewriteEnvironment gives the Flink environment the compaction job runs on (the service's warm cluster,
     *                           or a local one in a test)
     */
    public LakeMaintenance(Catalog catalog, Namespace namespace, MaintenanceSettings settings,
                           Supplier<StreamExecutionEnvironment> rewriteEnvironment, Clock clock) {
        this.catalog = catalog;
        this.namespace = namespace;
        this.settings = settings;
        this.rewriteEnvironment = rewriteEnvironment;
        this.clock = clock;
    }

    /** What one pass did to one table; {@code error} is null when every step succeeded. */
    public record TableReport(String table, int dataFilesBefore, int dataFilesAfter, int filesRewritten, int filesWritten,
                              int snapshotsBefore, int snapshotsAfter, int retainedForSink, int orphansDeleted,
                              List<String> orphansDeletedPaths, long millis, String error) {
    }

    /** One pass over the namespace. */
    public record RunReport(Instant startedAt, long millis, List<TableReport> tables) {
        public int filesRewritten() {
            return tables.stream().mapToInt(TableReport::filesRewritten).sum();
        }

        /** Snapshots before the pass minus after it: expired ones, net of the pass's own and the sink's new commits. */
        public int snapshotsExpired() {
            return tables.stream().mapToInt(t -> t.snapshotsBefore() - t.snapshotsAfter()).sum();
        }

        public int orphansDeleted() {
            return tables.stream().mapToInt(TableReport::orphansDeleted).sum();
        }

        public long failedTables() {
            return tables.stream().filter(t -> t.error() != null).count();
        }

        /** The one log line a pass leaves. */
        public String line() {
            return "lake maintenance at " + startedAt + ": " + tables.size() + " tables in " + millis + " ms; "
                    + filesRewritten() + " data files compacted into "
                    + tables.stream().mapToInt(TableReport::filesWritten).sum() + ", " + snapshotsExpired()
                    + " snapshots expired (net of new commits: " + tables.stream().mapToInt(TableReport::snapshotsBefore).sum()
                    + " before, " + tables.stream().mapToInt(TableReport::snapshotsAfter).sum() + " after), " + orphansDeleted() + " orphan files deleted, " + failedTables() + " tables failed"
                    + tables.stream().filter(t -> t.error() != null).map(t -> " [" + t.table() + ": " + t.error() + "]")
                    .reduce("", String::concat);
        }
    }

    public RunReport runAll() {
        Instant started = clock.instant();
        long t0 = System.nanoTime();
        List<TableReport> reports = new ArrayList<>();
        for (TableIdentifier id : catalog.listTables(namespace)) {
            reports.add(run(id));
        }
        return new RunReport(started, (System.nanoTime() - t0) / 1_000_000, List.copyOf(reports));
    }

    /** Compaction, then expiry, then orphan clean-up, on one table. */
    public TableReport run(TableIdentifier id) {
        long t0 = System.nanoTime();
        Table table;
        try {
            table = catalog.loadTable(id);
        } catch (RuntimeException e) {
            return failed(id, t0, e);
        }
        int filesBefore = dataFiles(table);
        int snapshotsBefore = snapshots(table);
        int rewritten = 0;
        int written = 0;
        int retainedForSink = 0;
        List<String> orphans = List.of();
        try {
            keepMetadataFilesBounded(table);
            if (table.currentSnapshot() != null) {
                StreamExecutionEnvironment env = rewriteEnvironment.get();
                RewriteDataFilesActionResult result = Actions.forTable(env, table).rewriteDataFiles()
                        .targetSizeInBytes(settings.targetFileSizeBytes()).execute();
                rewritten = result.deletedDataFiles().size();
                written = result.addedDataFiles().size();
                table.refresh();
                retainedForSink = expire(table);
                table.refresh();
            }
            orphans = deleteOrphans(table);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "maintenance of " + id + " failed", e);
            table.refresh();
            return new TableReport(id.toString(), filesBefore, dataFiles(table), rewritten, written, snapshotsBefore,
                    snapshots(table), retainedForSink, orphans.size(), orphans, (System.nanoTime() - t0) / 1_000_000,
                    SnapshotSqlEngine.rootMessage(e));
        }
        table.refresh();
        return new TableReport(id.toString(), filesBefore, dataFiles(table), rewritten, written, snapshotsBefore,
                snapshots(table), retainedForSink, orphans.size(), orphans, (System.nanoTime() - t0) / 1_000_000, null);
    }

    /**
     * Expires snapshots older than the max age, keeping the newest {@code retainLast} ancestors and, whatever their
     * number, every ancestor down to the newest one the sink committed.
     *
     * @return how many ancestors had to be kept for the sink (its newest commit's depth from the current snapshot)
     */
    private int expire(Table table) {
        int sinkDepth = sinkCommitDepth(table);
        int retain = Math.max(settings.retainLast(), sinkDepth);
        table.expireSnapshots()
                .expireOlderThan(clock.millis() - settings.snapshotMaxAge().toMillis())
                .retainLast(retain)
                .commit();
        return sinkDepth;
    }

    /** 1 if the current snapshot is the sink's newest commit, 2 if its parent is, ...; 0 if no ancestor is the sink's. */
    static int sinkCommitDepth(Table table) {
        Snapshot current = table.currentSnapshot();
        if (current == null) {
            return 0;
        }
        int depth = 0;
        for (Snapshot s : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
            depth++;
            if (s.summary().keySet().stream().anyMatch(k -> k.startsWith(SINK_OFFSETS_PREFIX))) {
                return depth;
            }
        }
        return 0;
    }

    /**
     * Deletes the files under the table's location that are older than the orphan age and that neither the current
     * metadata, its metadata log, nor any retained snapshot (manifest list, manifests, data and delete files)
     * references. If the references cannot all be read, nothing is deleted.
     */
    private List<String> deleteOrphans(Table table) {
        long olderThan = clock.millis() - settings.orphanMinAge().toMillis();
        Set<String> reachable = reachable(table);
        List<String> candidates = new ArrayList<>();
        FileSystemWalker.listDirRecursivelyWithHadoop(table.location(), table.specs(),
                status -> status.getModificationTime() < olderThan, new Configuration(), Integer.MAX_VALUE, Integer.MAX_VALUE,
                dir -> { }, candidates::add);
        List<String> deleted = new ArrayList<>();
        for (String file : candidates) {
            if (!reachable.contains(normalize(file))) {
                table.io().deleteFile(file);
                deleted.add(file);
            }
        }
        return deleted;
    }

    private static Set<String> reachable(Table table) {
        FileIO io = table.io();
        Set<String> out = new HashSet<>();
        ReachableFileUtil.metadataFileLocations(table, false).forEach(f -> out.add(normalize(f)));
        ReachableFileUtil.statisticsFilesLocations(table).forEach(f -> out.add(normalize(f)));
        out.add(normalize(ReachableFileUtil.versionHintLocation(table)));
        Set<String> manifestsRead = new HashSet<>();
        for (Snapshot snapshot : table.snapshots()) {
            if (snapshot.manifestListLocation() != null) {
                out.add(normalize(snapshot.manifestListLocation()));
            }
            for (ManifestFile manifest : snapshot.allManifests(io)) {
                if (!manifestsRead.add(manifest.path())) {
                    continue;
                }
                out.add(normalize(manifest.path()));
                try {
                    if (manifest.content() == ManifestContent.DATA) {
                        try (CloseableIterable<String> paths = ManifestFiles.readPaths(manifest, io, table.specs())) {
                            paths.forEach(p -> out.add(normalize(p)));
                        }
                    } else {
                        try (CloseableIterable<DeleteFile> deletes = ManifestFiles.readDeleteManifest(manifest, io, table.specs())) {
                            deletes.forEach(d -> out.add(normalize(d.location())));
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read manifest " + manifest.path(), e);
                }
            }
        }
        return out;
    }

    /** The same file named {@code file:/x}, {@code file:///x} or {@code /x}: compared by authority and path. */
    static String normalize(String location) {
        java.net.URI uri = new org.apache.hadoop.fs.Path(location).toUri();
        return (uri.getAuthority() == null ? "" : "//" + uri.getAuthority()) + uri.getPath();
    }

    /**
     * Every sink commit writes a new metadata file; without this table property the old ones are never deleted (the
     * metadata log keeps the newest {@code write.metadata.previous-versions-max}, default 100).
     */
    private static void keepMetadataFilesBounded(Table table) {
        if (!"true".equals(table.properties().get(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED))) {
            table.updateProperties().set(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true").commit();
        }
    }

    static int dataFiles(Table table) {
        Snapshot s = table.currentSnapshot();
        if (s == null) {
            return 0;
        }
        String n = s.summary().get("total-data-files");
        return n == null ? -1 : Integer.parseInt(n);
    }

    private static int snapshots(Table table) {
        int n = 0;
        for (Snapshot ignored : table.snapshots()) {
            n++;
        }
        return n;
    }

    private static TableReport failed(TableIdentifier id, long t0, RuntimeException e) {
        return new TableReport(id.toString(), 0, 0, 0, 0, 0, 0, 0, 0, List.of(), (System.nanoTime() - t0) / 1_000_000,
                SnapshotSqlEngine.rootMessage(e));
    }
}
