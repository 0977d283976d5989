package io.streamhouse.drills;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.topic.ConnectNames;
import io.streamhouse.lake.LakeAudit;
import io.streamhouse.lake.LakeAuditProcess;
import io.streamhouse.replay.CepShadow;
import io.streamhouse.replay.Endpoints;
import io.streamhouse.replay.Groups;
import io.streamhouse.replay.ReplayCli;
import io.streamhouse.replay.TopicReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The steps every drill ends with, whatever its load and fault: waiting for the consumers to catch up, the alert ids
 * read back, a fresh rebuild into a shadow compared with live, and Iceberg audited against Kafka. Each reads the stack
 * and decides nothing about the drill; the drill turns their results into its checks.
 */
final class DrillSteps {
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    /** How long a failed discard is retried: a crashed shadow's consumer group empties after its session timeout. */
    static final Duration DISCARD_RETRY = Duration.ofSeconds(90);

    /** Records behind, summed over the group's partitions; {@code Long.MAX_VALUE} while the broker cannot say. */
    static long lag(Admin admin, String group) {
        try {
            Map<TopicPartition, Long> committed = Groups.committed(admin, group);
            Set<String> topics = new HashSet<>();
            committed.keySet().forEach(tp -> topics.add(tp.topic()));
            Map<TopicPartition, Long> ends = Groups.ends(admin, topics);
            long lag = 0;
            for (var e : committed.entrySet()) {
                lag += Math.max(0, ends.getOrDefault(e.getKey(), e.getValue()) - e.getValue());
            }
            return lag;
        } catch (RuntimeException brokerAway) {
            return Long.MAX_VALUE;
        }
    }

    static boolean hasMembers(Admin admin, String group) throws Exception {
        Map<String, ConsumerGroupDescription> d;
        try {
            d = admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException) {
                return false; // a stack started --without lake never had the sink's group (broker 4.x says so, not "empty")
            }
            throw e;
        }
        return d.containsKey(group) && !d.get(group).members().isEmpty();
    }

    /** The load has ended: wait until the watched groups have consumed (almost) everything, so the checks see the end state. */
    static void awaitQuiet(Admin admin, List<String> groups, Duration timeout) throws InterruptedException {
        long until = System.currentTimeMillis() + timeout.toMillis();
        while (System.currentTimeMillis() < until) {
            // A transaction marker after the last committed record can leave one offset per partition.
            if (groups.stream().allMatch(g -> lag(admin, g) <= 20)) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(250);
        }
        throw new Endpoints.EnvironmentException(groups + " did not catch up within " + timeout.toSeconds() + " s after the load");
    }

    static List<String> alertIds(TopicReader reader, TopicSerdes serdes) {
        List<String> alertIds = new ArrayList<>();
        for (Topic<String, Alert> topic : List.of(Topics.FRAUD_ALERTS, Topics.PARCEL_ALERTS, Topics.MAINTENANCE_ALERTS)) {
            Deserializer<Alert> decoder = serdes.valueSerde(topic).deserializer();
            reader.readAll(topic.name(), r -> {
                try {
                    alertIds.add(decoder.deserialize(r.topic(), r.value()).getAlertId());
                } catch (RuntimeException unreadable) {
                    // not an alert this check can judge; the topic's own consumers dead-letter it
                }
            });
        }
        return alertIds;
    }

    /** Iceberg equals Kafka for every landed table, polled until nothing is missing (the sink commits each second). */
    static Drill.LakeCheck lakeCheck(ReplayCli.Stack stack, boolean lakeRuns, String bootstrap, int timeoutSeconds, PrintStream log) throws InterruptedException {
        if (!lakeRuns) {
            return new Drill.LakeCheck(false, null, 0, 0, 0, List.of(), "the lake does not run");
        }
        Path catalog = stack.data().resolve("platform/lake-tables/lake-catalog.properties");
        if (!Files.isRegularFile(catalog)) {
            return new Drill.LakeCheck(true, false, 0, 0, 0, List.of(), "the lake runs but " + catalog + " is missing");
        }
        log.println("  auditing the lake: Iceberg scans against read_committed reads of each landed topic ...");
        long until = System.currentTimeMillis() + timeoutSeconds * 1000L;
        LakeAuditProcess.Result r;
        while (true) {
            try {
                r = LakeAuditProcess.audit(catalog, bootstrap, ConnectNames.LAKE_DEAD_LETTER_TOPIC,
                        stack.data().resolve("replay/drill-lake-audit"), Duration.ofSeconds(180));
            } catch (IllegalStateException | UncheckedIOException e) {
                return new Drill.LakeCheck(true, false, 0, 0, 0, List.of(), e.getMessage().lines().findFirst().orElse(""));
            }
            long extra = r.topics().stream().mapToLong(LakeAudit.TopicAudit::extra).sum();
            long twice = r.topics().stream().mapToLong(LakeAudit.TopicAudit::duplicateRows).sum();
            // Missing rows may still be on their way; extra or doubled rows never go away.
            if (r.equal() || extra > 0 || twice > 0 || System.currentTimeMillis() > until) {
                break;
            }
            TimeUnit.SECONDS.sleep(2); // the sink commits every second: poll the next commit, bounded by the deadline
        }
        return new Drill.LakeCheck(true, r.equal(), r.topics().stream().mapToLong(LakeAudit.TopicAudit::missing).sum(),
                r.topics().stream().mapToLong(LakeAudit.TopicAudit::extra).sum(),
                r.topics().stream().mapToLong(LakeAudit.TopicAudit::duplicateRows).sum(), r.topics(), null);
    }

    /** A fresh rebuild of what runs: the api's two applications, and the CEP job when its group exists. */
    static Drill.RebuildCheck rebuild(ReplayCli.Stack stack, boolean cepRuns, PrintStream log) throws Exception {
        String shadowId = "drill-" + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
        List<String> common = new ArrayList<>(List.of("--data", stack.data().toString()));
        if (stack.bootstrap() != null) {
            common.addAll(List.of("--bootstrap-servers", stack.bootstrap()));
        }
        if (stack.registry() != null) {
            common.addAll(List.of("--registry-url", stack.registry()));
        }
        String what = cepRuns ? "all" : "api";
        log.println("  rebuilding " + what + " into shadow " + shadowId + " and comparing with live ...");
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of("rebuild", what, "--id", shadowId, "--json"));
        args.addAll(common);
        int code = ReplayCli.run(args.toArray(String[]::new), new PrintStream(captured, true, StandardCharsets.UTF_8), log);
        String result;
        Long divergences = null;
        try {
            JsonNode summary = JSON.readTree(captured.toString(StandardCharsets.UTF_8));
            result = summary.path("result").asText(null);
            divergences = summary.path("divergences").isNumber() ? summary.path("divergences").asLong() : null;
        } catch (Exception noSummary) {
            result = "no summary (exit " + code + ")";
        }
        String details = null;
        if (code != ReplayCli.EQUAL) {
            // The shadow is discarded next: keep what it found, or a failed drill cannot be diagnosed afterwards.
            Path kept = stack.data().resolve("replay").resolve("drills").resolve(shadowId + "-rebuild.json");
            Files.createDirectories(kept.getParent());
            Files.write(kept, captured.toByteArray());
            details = kept.toString();
            // The discard deletes the CEP shadow's own log too, where a failed bounded run says why.
            Path cepLog = stack.data().resolve("replay").resolve("state").resolve(CepShadow.groupId(shadowId) + ".log");
            if (Files.exists(cepLog)) {
                Path keptLog = kept.resolveSibling(shadowId + "-cep-shadow.log");
                Files.copy(cepLog, keptLog, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                details += ", " + keptLog;
            }
        }
        List<String> discardArgs = new ArrayList<>(List.of("discard", shadowId));
        discardArgs.addAll(common);
        ByteArrayOutputStream discardOut = new ByteArrayOutputStream();
        // A shadow that failed may still hold its group until the dead member's session times out: try again, bounded.
        long until = System.currentTimeMillis() + DISCARD_RETRY.toMillis();
        int discarded;
        while (true) {
            discardOut.reset();
            discarded = ReplayCli.run(discardArgs.toArray(String[]::new), new PrintStream(discardOut, true, StandardCharsets.UTF_8), log);
            if (discarded == 0 || System.currentTimeMillis() > until) {
                break;
            }
            TimeUnit.SECONDS.sleep(5); // polling interval of a bounded retry
        }
        return new Drill.RebuildCheck(shadowId, code, result, divergences,
                discarded == 0 ? discardOut.toString(StandardCharsets.UTF_8).strip() : "discard failed (exit " + discarded + ")", details);
    }

    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException | UncheckedIOException e) {
            return "unknown";
        }
    }

    private DrillSteps() {
    }
}
