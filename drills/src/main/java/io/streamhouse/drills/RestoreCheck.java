package io.streamhouse.drills;

import io.streamhouse.loadtests.bench.KafkaTool;
import io.streamhouse.replay.Groups;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * wipe-api-state: the restore after the wipe, what Streams restored (the api's own timeline) over its restore span,
 * against Kafka's ConsumerPerformance reading the same changelog topics now. A measurement: it never fails the drill.
 */
final class RestoreCheck implements Check<RestoreCheck.Found> {
    /**
     * Streams' own restore comes from the api's {@code StreamsTimeline} lines: the records both applications restored
     * and the span from the first store partition's restore start to the last one's end ({@code restore}; null when the
     * log held no such line). {@code startReadyMs}, the supervisor's start until ready (JVM start, group join and
     * restore), is kept beside it.
     */
    record Found(List<String> changelogs, long changelogRecords, long startReadyMs, RestoreTimeline.Restore restore,
                 Double restoreRecordsPerSec, double consumerPerfFetchRecordsPerSec, Double ratio, String note) {
    }

    private final List<String> apiGroups;
    private final Fault fault;
    private final Path kafkaTools;

    RestoreCheck(List<String> apiGroups, Fault fault, Path kafkaTools) {
        this.apiGroups = apiGroups;
        this.fault = fault;
        this.kafkaTools = kafkaTools;
    }

    @Override
    public CheckResult<Found> run(CheckContext on) {
        List<String> changelogs = new ArrayList<>();
        for (String app : apiGroups) {
            // A shadow's application id extends the live one (<app>-shadow-<id>): its changelogs are not the api's.
            Groups.topicsWithPrefix(on.admin(), app + "-").stream()
                    .filter(t -> t.endsWith("-changelog") && !t.startsWith(app + "-shadow-"))
                    .sorted().forEach(changelogs::add);
        }
        Map<String, Long> records = new LinkedHashMap<>();
        for (String t : changelogs) {
            long[] n = {0};
            on.reader().readAll(t, r -> n[0]++);
            records.put(t, n[0]);
        }
        long total = records.values().stream().mapToLong(Long::longValue).sum();
        double perfRecords = 0, perfMs = 0;
        String note = null;
        KafkaTool tool = new KafkaTool(kafkaTools.toAbsolutePath());
        try {
            for (var e : records.entrySet()) {
                if (e.getValue() == 0) {
                    continue;
                }
                KafkaTool.ConsumerPerf p = tool.consumerPerformance(on.bootstrap(), e.getKey(), e.getValue(), Duration.ofMinutes(3));
                perfRecords += p.records();
                perfMs += p.fetchMs();
            }
        } catch (IOException | InterruptedException e) {
            note = "ConsumerPerformance failed: " + e.getMessage().lines().findFirst().orElse("");
            on.log().println("  " + note);
        }
        double perfRate = perfMs > 0 ? perfRecords * 1000.0 / perfMs : 0;
        RestoreTimeline.Restore restore = fault.restore;
        if (restore == null) {
            note = (note == null ? "" : note + "; ") + "the api's log holds no StreamsTimeline restore line after the start";
        }
        Double restoreRate = restore != null && restore.seconds() > 0 ? restore.recordsPerSec() : null;
        Double ratio = restoreRate != null && perfRate > 0 ? restoreRate / perfRate : null;
        return CheckResult.passed(new Found(changelogs, total, fault.startReadyMs == null ? -1 : fault.startReadyMs, restore, restoreRate,
                perfRate, ratio, note));
    }
}
