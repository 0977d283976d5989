package io.streamhouse.drills;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Streams' own restore figures, read from the lines the api's {@code StreamsTimeline} logs when an application reaches
 * RUNNING: how many records each application restored into how many store partitions, between which seconds after the
 * JVM started. Both applications of one api restore side by side in one JVM, so the restore of the api is the sum of
 * their records over the span from the first start to the last end.
 */
final class RestoreTimeline {
    private static final Pattern RUNNING = Pattern.compile(
            "(?<app>[\\w ]+?): \\w+ -> RUNNING [\\d.]+ s after the JVM started; restored (?<records>\\d+) records into "
                    + "(?<partitions>\\d+) store partitions between (?<from>[\\d.]+) s and (?<to>[\\d.]+) s");

    /** One application's restore: its records and store partitions, from and to in seconds after the JVM started. */
    record AppRestore(String app, long records, long partitions, double fromSec, double toSec) {
    }

    /** The api's restore: every application's, the records summed, the span from the first start to the last end. */
    record Restore(Map<String, AppRestore> apps, long records, long partitions, double seconds) {
        double recordsPerSec() {
            return seconds > 0 ? records / seconds : 0;
        }
    }

    private RestoreTimeline() {
    }

    /**
     * The restore logged in {@code log}, the output of one api run: for each application its last RUNNING line with a
     * restore (the counts are cumulative over the run, so a later line after a rebalance holds the earlier ones); empty
     * when no application restored anything.
     */
    static Optional<Restore> parse(String log) {
        Map<String, AppRestore> apps = new LinkedHashMap<>();
        Matcher m = RUNNING.matcher(log);
        while (m.find()) {
            String app = m.group("app").trim();
            apps.put(app, new AppRestore(app, Long.parseLong(m.group("records")), Long.parseLong(m.group("partitions")),
                    Double.parseDouble(m.group("from")), Double.parseDouble(m.group("to"))));
        }
        if (apps.isEmpty()) {
            return Optional.empty();
        }
        long records = apps.values().stream().mapToLong(AppRestore::records).sum();
        long partitions = apps.values().stream().mapToLong(AppRestore::partitions).sum();
        double from = apps.values().stream().mapToDouble(AppRestore::fromSec).min().orElse(0);
        double to = apps.values().stream().mapToDouble(AppRestore::toSec).max().orElse(0);
        return Optional.of(new Restore(Map.copyOf(apps), records, partitions, to - from));
    }
}
