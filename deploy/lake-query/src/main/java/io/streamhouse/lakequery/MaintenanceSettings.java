package io.streamhouse.lakequery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How the lake is maintained: every {@code interval}, for every table of the namespace, small files are compacted up to
 * {@code targetFileSizeBytes}, snapshots older than {@code snapshotMaxAge} are expired (the newest {@code retainLast}
 * always kept, and never the sink's newest commit: see {@link LakeMaintenance}), and files under the table that no
 * retained snapshot or metadata file references and that are older than {@code orphanMinAge} are deleted.
 *
 * <p>{@code orphanMinAge} must stay far above the sink's commit interval plus its commit timeout (1 s + 4 s here): a
 * file younger than that may be one the sink has written and announced but not yet committed. It is at least
 * {@link #MIN_ORPHAN_AGE}.
 */
public record MaintenanceSettings(boolean enabled, Duration interval, Duration snapshotMaxAge, int retainLast,
                                  long targetFileSizeBytes, Duration orphanMinAge) {

    public static final Duration MIN_ORPHAN_AGE = Duration.ofMinutes(10);

    public static final MaintenanceSettings DEFAULTS = new MaintenanceSettings(true, Duration.ofMinutes(10),
            Duration.ofHours(1), 10, 128L * 1024 * 1024, Duration.ofHours(24));

    public static final MaintenanceSettings OFF = DEFAULTS.withEnabled(false);

    public MaintenanceSettings {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(snapshotMaxAge, "snapshotMaxAge");
        Objects.requireNonNull(orphanMinAge, "orphanMinAge");
        if (interval.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("maintenance interval must be at least 1 s, was " + interval);
        }
        if (snapshotMaxAge.isNegative()) {
            throw new IllegalArgumentException("snapshot max age must not be negative, was " + snapshotMaxAge);
        }
        if (retainLast < 1) {
            throw new IllegalArgumentException("retain-last must be at least 1, was " + retainLast);
        }
        if (targetFileSizeBytes < 1024 * 1024) {
            throw new IllegalArgumentException("target file size must be at least 1 MiB, was " + targetFileSizeBytes + " bytes");
        }
        if (orphanMinAge.compareTo(MIN_ORPHAN_AGE) < 0) {
            throw new IllegalArgumentException("orphan min age must be at least " + MIN_ORPHAN_AGE.toMinutes()
                    + " min (far above the sink's commit interval and timeout, so its in-flight files are never deleted), was " + orphanMinAge);
        }
    }

    public MaintenanceSettings withEnabled(boolean on) {
        return new MaintenanceSettings(on, interval, snapshotMaxAge, retainLast, targetFileSizeBytes, orphanMinAge);
    }

    /** The child's command-line arguments for these settings ({@link #fromArgs} reads them back). */
    public List<String> toArgs() {
        List<String> out = new ArrayList<>();
        out.addAll(List.of("--maintenance", enabled ? "on" : "off", "--maintenance-interval", interval.toString(),
                "--snapshot-max-age", snapshotMaxAge.toString(), "--retain-last", Integer.toString(retainLast),
                "--target-file-size", Long.toString(targetFileSizeBytes), "--orphan-min-age", orphanMinAge.toString()));
        return out;
    }

    /** From parsed {@code --name value} arguments; absent ones take {@link #DEFAULTS}. Bad values: a message naming the option. */
    public static MaintenanceSettings fromArgs(Map<String, String> a) {
        String on = a.getOrDefault("maintenance", "on");
        if (!on.equals("on") && !on.equals("off")) {
            throw new IllegalArgumentException("--maintenance takes on or off, not '" + on + "'");
        }
        return new MaintenanceSettings(on.equals("on"),
                duration(a, "maintenance-interval", DEFAULTS.interval()),
                duration(a, "snapshot-max-age", DEFAULTS.snapshotMaxAge()),
                integer(a, "retain-last", DEFAULTS.retainLast()),
                integer(a, "target-file-size", DEFAULTS.targetFileSizeBytes()),
                duration(a, "orphan-min-age", DEFAULTS.orphanMinAge()));
    }

    private static Duration duration(Map<String, String> a, String name, Duration fallback) {
        String v = a.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Duration.parse(v);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--" + name + " takes an ISO-8601 duration such as PT10M, not '" + v + "'");
        }
    }

    private static int integer(Map<String, String> a, String name, int fallback) {
        return (int) integer(a, name, (long) fallback);
    }

    private static long integer(Map<String, String> a, String name, long fallback) {
        String v = a.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " takes a whole number, not '" + v + "'");
        }
    }
}
