package io.streamhouse.drills;

import io.streamhouse.domain.topic.ConnectNames;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.loadtests.generator.Anomaly;
import io.streamhouse.loadtests.generator.EventKind;
import io.streamhouse.loadtests.generator.Generation;
import io.streamhouse.loadtests.generator.GeneratorConfig;
import io.streamhouse.loadtests.generator.GroundTruthFiles;
import io.streamhouse.loadtests.generator.KafkaSink;
import io.streamhouse.loadtests.generator.RelativeStart;
import io.streamhouse.loadtests.generator.SinkRun;
import io.streamhouse.loadtests.score.Scorecard;
import io.streamhouse.loadtests.score.Scoring;
import io.streamhouse.replay.Endpoints;
import io.streamhouse.replay.Groups;
import io.streamhouse.replay.Records;
import io.streamhouse.replay.ReplayCli;
import io.streamhouse.replay.TopicReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.serialization.Deserializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code drill burst}: the seeded generator's traffic (every event kind, its planted anomalies, its late events; event
 * times in the past, ending a minute before now) written to the stack's topics as fast as Kafka takes it, as the
 * generator's {@code --target kafka} does. Then the checks every drill makes — every acknowledged event on its topic
 * once, no alert id twice, a fresh rebuild equal to live, Iceberg equal to Kafka when the lake runs — and the live CEP
 * job's detection scored against the ground truth, with the share of the burst's events it wrote to its {@code .late}
 * topics against the share the generator delivered beyond its 30 s bound. No fault: the burst itself is the stress.
 * The CEP job's watermark never goes back, so a burst is meaningful only on a stack that has seen no newer events of
 * these kinds (a fresh one, before other drills).
 */
@Command(name = "burst", mixinStandardHelpOptions = true,
        description = "Write a seeded generator burst (every kind, in the past) to Kafka at full speed; check nothing acknowledged "
                + "is lost, the rebuild is equal, and score the live CEP job's alerts and late events against the ground truth.")
final class BurstDrill implements Callable<Integer> {
    /** Not a seed any test or earlier measurement used: the job meets this traffic for the first time. */
    static final long DEFAULT_SEED = 3636;
    static final int MIN_EVENTS = 1_000;
    static final int MAX_EVENTS = 400_000;
    /** How far the late share may be above the share the generator delivered beyond the bound, in percentage points. */
    static final double LATE_SHARE_TOLERANCE_POINTS = 1.0;

    @CommandLine.ParentCommand
    Drill drill;
    @Mixin
    ReplayCli.Stack stack;
    @Option(names = "--events", defaultValue = "50000", description = "events in the burst, " + MIN_EVENTS + "-" + MAX_EVENTS + " (default ${DEFAULT-VALUE})")
    int events;
    @Option(names = "--seed", defaultValue = "" + DEFAULT_SEED, description = "the generator seed (default ${DEFAULT-VALUE})")
    long seed;
    @Option(names = "--out", description = "where the ground truth goes, for ./streamhouse score --truth (default <data>/replay/drills/burst-<seed>)")
    Path truthDir;
    @Option(names = "--timeout", defaultValue = "300", description = "seconds to wait for the consumers to catch up and for the alert topics to stand still (default ${DEFAULT-VALUE})")
    int timeout;
    @Option(names = "--quiet", defaultValue = "45", description = "seconds the alert topics must stand still to count as complete: the CEP job evaluates an input's last 30 s of event time once the input has been quiet for 30 s (default ${DEFAULT-VALUE})")
    int quiet;
    @Option(names = "--json", description = "print the summary as JSON on stdout")
    boolean json;

    /** One planted pattern's score, with its misses and extras named. */
    record PatternResult(String pattern, int planted, int alerted, int matched, double recall, double precision, List<String> missed,
                         List<String> extra) {
    }

    /**
     * @param lateSharePercent       the burst's events on the CEP job's {@code .late} topics, percent of the burst
     * @param beyondBoundSharePercent the events the generator delivered beyond its lateness bound, percent of the burst
     */
    record Detection(boolean passed, boolean settled, long alertRecords, long inEffect, List<PatternResult> patterns, long lateEvents,
                     double lateSharePercent, long beyondBound, double beyondBoundSharePercent, long deliveredLate) {
    }

    record BurstReport(String scenario, String result, long seed, int events, String eventTime, long sent, long acknowledged,
                       double sendSeconds, double eventsPerSecond, String sendError, DrillChecks.Delivery delivery, long alertsRead,
                       List<String> repeatedAlertIds, Detection detection, RebuildCheck.Found rebuild, LakeCheck.Found lake,
                       String groundTruth, String loadAverage, List<String> failures) {
    }

    @Override
    public Integer call() throws Exception {
        if (events < MIN_EVENTS || events > MAX_EVENTS || timeout < 10 || quiet < 1 || quiet >= timeout) {
            throw new ReplayCli.BadInput("--events " + MIN_EVENTS + "-" + MAX_EVENTS + ", --timeout at least 10 s, --quiet between 1 s and the timeout");
        }
        Endpoints endpoints = stack.endpoints();
        for (String host : Drill.bootstrapHosts(endpoints.bootstrapServers())) {
            Drill.requireLoopback("the Kafka bootstrap server", host);
        }
        Drill.requireLoopback("the schema registry", URI.create(endpoints.registryUrl()).getHost());
        ReplayCli.Stack.requireRegistry(endpoints);
        PrintStream out = drill.parent.out();
        PrintStream log = json ? drill.parent.err() : out;
        Path truth = truthDir != null ? truthDir.toAbsolutePath() : stack.data().resolve("replay/drills/burst-" + seed);
        try (Admin admin = stack.admin(endpoints);
             CachingSchemaRegistryClient registry = new CachingSchemaRegistryClient(endpoints.registryUrl())) {
            if (!Groups.exists(admin, Drill.CEP_GROUP)) {
                throw new Endpoints.EnvironmentException("the CEP job's group " + Drill.CEP_GROUP + " is not on " + endpoints.bootstrapServers()
                        + ": the burst scores the CEP job, start the stack with it");
            }
            List<String> apiGroups = List.of("streamhouse-api", stack.liveServingId());
            boolean lakeRuns = DrillSteps.hasMembers(admin, ConnectNames.LAKE_GROUP);
            List<String> failures = new ArrayList<>();

            // 1: the burst, at full speed: every event counted once Kafka acknowledged it.
            Generation generation = RelativeStart.generateEndingBefore(GeneratorConfig.defaults(seed, events), Instant.now());
            Files.createDirectories(truth);
            GroundTruthFiles.writeAll(generation, truth);
            String eventTime = generation.config().start() + " .. " + generation.events().stream().map(e -> e.occurredAt())
                    .max(java.util.Comparator.naturalOrder()).orElseThrow();
            log.printf(Locale.ROOT, "burst drill: %,d generator events (seed %d, event time %s, %,d planted anomalies, %,d delivered late, "
                            + "%,d of them beyond the %s bound) to Kafka at full speed; ground truth in %s%n",
                    generation.events().size(), seed, eventTime, generation.anomalies().size(), generation.lateEvents().size(),
                    generation.lateEvents().stream().filter(l -> l.beyondBound()).count(), generation.config().latenessBound(), truth);
            Map<String, Integer> statuses = new ConcurrentHashMap<>();
            String sendError = null;
            long began = System.nanoTime();
            try (KafkaSink sink = new KafkaSink(endpoints.bootstrapServers(), endpoints.registryUrl(), Map.of(),
                    (e, failure) -> statuses.put(e.eventId(), failure == null ? 200 : 0))) {
                SinkRun.send(generation, sink, EnumSet.allOf(EventKind.class), Duration.ofMinutes(10), null);
            } catch (IOException | RuntimeException e) {
                sendError = e.getMessage();
                failures.add("the burst did not complete: " + e.getMessage());
            }
            double sendSeconds = (System.nanoTime() - began) / 1e9;
            long acknowledged = statuses.values().stream().filter(s -> s == 200).count();
            log.printf(Locale.ROOT, "  %,d sent, %,d acknowledged by Kafka in %.1f s (%,.0f events/s)%n", statuses.size(), acknowledged,
                    sendSeconds, acknowledged / Math.max(sendSeconds, 1e-3));

            // 2: the consumers catch up, then the checks every drill makes.
            DrillSteps.awaitQuiet(admin, DrillChecks.quietGroups(List.of(Drill.CEP_GROUP), List.of(), apiGroups), Duration.ofSeconds(timeout));
            TopicSerdes serdes = new RegistryTopicSerdes(registry);
            TopicReader reader = new TopicReader(endpoints.bootstrapServers(), admin, Duration.ofSeconds(120));
            DrillChecks.Delivery delivery = DrillChecks.delivery(statuses, onTheirTopics(reader, serdes, statuses.keySet()));
            if (!delivery.passed()) {
                failures.add("burst events: " + delivery.lost() + " acknowledged but not on their topic, " + delivery.duplicated()
                        + " on their topic twice");
            }
            CheckContext on = new CheckContext(stack, admin, reader, serdes, endpoints.bootstrapServers(), log);
            AlertIdsCheck.Found alerts = on.run(new AlertIdsCheck(), failures);

            // 3: what the live job detected, and how much of the burst it read behind its watermark.
            log.printf(Locale.ROOT, "  scoring the live alerts against the ground truth (read_committed until they stand still for %d s) ...%n", quiet);
            Scoring.Result score = Scoring.score(generation, generation.anomalies(), endpoints.bootstrapServers(), endpoints.registryUrl(), "",
                    Duration.ofSeconds(quiet), Duration.ofSeconds(timeout));
            Detection detection = detection(score);
            failures.addAll(detectionFailures(detection, score.unreadable().size()));

            RebuildCheck.Found rebuild = on.run(new RebuildCheck(true), failures);
            LakeCheck.Found lake = on.run(new LakeCheck(lakeRuns, timeout), failures);
            BurstReport report = new BurstReport("burst", failures.isEmpty() ? "PASS" : "FAIL", seed, generation.events().size(), eventTime,
                    statuses.size(), acknowledged, sendSeconds, acknowledged / Math.max(sendSeconds, 1e-3), sendError, delivery, alerts.read(),
                    alerts.repeated(), detection, rebuild, lake, truth.toString(),
                    DrillSteps.loadAverage(), failures);
            drill.parent.summary(report);
            if (json) {
                out.println(Records.JSON.writeValueAsString(report));
            } else {
                print(report, score, out);
            }
            return failures.isEmpty() ? ReplayCli.EQUAL : ReplayCli.DIVERGENT;
        }
    }

    /** The ids of {@code wanted} as found on the topics of every event kind, one entry per record. */
    private static List<String> onTheirTopics(TopicReader reader, TopicSerdes serdes, Set<String> wanted) {
        Set<String> ids = new HashSet<>(wanted);
        List<String> found = new ArrayList<>();
        for (EventKind kind : EventKind.values()) {
            Deserializer<?> decoder = serdes.valueSerde(kind.topic()).deserializer();
            reader.readAll(kind.topic().name(), r -> {
                try {
                    String id = ((Envelope) ((SpecificRecord) decoder.deserialize(r.topic(), r.value())).get(0)).getEventId();
                    if (ids.contains(id)) {
                        found.add(id);
                    }
                } catch (RuntimeException unreadable) {
                    // not an event of the burst (it wrote only readable ones)
                }
            });
        }
        return found;
    }

    static Detection detection(Scoring.Result score) {
        List<PatternResult> patterns = new ArrayList<>();
        for (Scorecard.PatternScore p : score.card().patterns()) {
            var s = p.score();
            patterns.add(new PatternResult(Scorecard.name(p.type()), s.expected(), s.found(), s.truePositives(), s.recall(), s.precision(),
                    s.missed().stream().map(Scorecard::describe).toList(), s.spurious().stream().map(Scorecard::describe).toList()));
        }
        return new Detection(score.passes(), score.settled(), score.resolved().read(), score.resolved().inEffect().size(), patterns,
                score.late().size(), score.lateSharePercent(), score.deliveredBeyondBound(), score.beyondBoundSharePercent(), score.deliveredLate());
    }

    /**
     * The detection checks: every pattern at recall 100 % and precision at least {@link Scorecard#MIN_PRECISION} (the
     * scorer's own pass), every alert readable, the alert topics settled, and no more of the burst late than the
     * generator delivered beyond its bound plus {@link #LATE_SHARE_TOLERANCE_POINTS}: more means the job's watermark ran
     * ahead of events that were in time.
     */
    static List<String> detectionFailures(Detection d, int unreadable) {
        List<String> failures = new ArrayList<>();
        for (PatternResult p : d.patterns()) {
            if (p.recall() < 1.0 || p.precision() < Scorecard.MIN_PRECISION) {
                failures.add(String.format(Locale.ROOT, "detection of %s: recall %.2f %%, precision %.2f %% (%d missed, %d extra)", p.pattern(),
                        100 * p.recall(), 100 * p.precision(), p.missed().size(), p.extra().size()));
            }
        }
        if (unreadable > 0) {
            failures.add(unreadable + " alert records unreadable");
        }
        if (!d.settled()) {
            failures.add("the alert topics were still growing at the timeout");
        }
        if (d.lateSharePercent() > d.beyondBoundSharePercent() + LATE_SHARE_TOLERANCE_POINTS) {
            failures.add(String.format(Locale.ROOT, "%.2f %% of the burst went to the .late topics, more than the %.2f %% the generator delivered "
                    + "beyond its bound plus %.0f point", d.lateSharePercent(), d.beyondBoundSharePercent(), LATE_SHARE_TOLERANCE_POINTS));
        }
        return failures;
    }

    private static void print(BurstReport r, Scoring.Result score, PrintStream out) {
        out.printf(Locale.ROOT, "Drill burst. Load: %,d generator events (seed %d, event time %s) sent to Kafka in %.1f s: %,d acknowledged, "
                        + "%,.0f events/s; load average %s%n", r.events(), r.seed(), r.eventTime(), r.sendSeconds(), r.acknowledged(),
                r.eventsPerSecond(), r.loadAverage());
        DrillChecks.Delivery a = r.delivery();
        out.printf(Locale.ROOT, "Burst events: %,d sent, %,d acknowledged, %d not acknowledged; %d acknowledged but lost, %d on their topic twice%s%n",
                a.sent(), a.accepted(), a.failed(), a.lost(), a.duplicated(), a.examples().isEmpty() ? "" : " " + a.examples());
        out.printf(Locale.ROOT, "Alerts: %,d read, %d ids written more than once%s%n", r.alertsRead(), r.repeatedAlertIds().size(),
                r.repeatedAlertIds().isEmpty() ? "" : " " + r.repeatedAlertIds());
        out.println("Detection, live CEP job against the ground truth (" + r.groundTruth() + "):");
        score.print(out);
        Detection d = r.detection();
        out.printf(Locale.ROOT, "Late: %.2f %% of the burst on the .late topics (%,d of %,d); the generator delivered %.2f %% beyond its bound "
                        + "(%,d; %,d late in all): %s%n", d.lateSharePercent(), d.lateEvents(), r.events(), d.beyondBoundSharePercent(),
                d.beyondBound(), d.deliveredLate(), Math.abs(d.lateSharePercent() - d.beyondBoundSharePercent()) <= LATE_SHARE_TOLERANCE_POINTS
                        ? "within one point" : String.format(Locale.ROOT, "%+.2f points", d.lateSharePercent() - d.beyondBoundSharePercent()));
        out.printf(Locale.ROOT, "Rebuild: %s (%s divergences, exit %d), shadow %s; %s%n",
                r.rebuild().result() == null ? "no verdict (the rebuild failed, see its lines above)" : r.rebuild().result(), r.rebuild().divergences(),
                r.rebuild().exitCode(), r.rebuild().shadowId(), r.rebuild().discard());
        if (r.rebuild().details() != null) {
            out.printf(Locale.ROOT, "  the rebuild's summary, every divergent key with both values: %s%n", r.rebuild().details());
        }
        LakeCheck.Found k = r.lake();
        if (!k.ran()) {
            out.println("Lake: not checked (" + k.note() + ")");
        } else {
            out.printf(Locale.ROOT, "Lake: Iceberg %s Kafka over %d tables (%d missing, %d extra, %d rows twice)%s%n",
                    Boolean.TRUE.equals(k.equal()) ? "equals" : "does NOT equal", k.tables().size(), k.missing(), k.extra(), k.duplicateRows(),
                    k.note() == null ? "" : "; " + k.note());
        }
        r.failures().forEach(f -> out.println("FAILED: " + f));
        out.println("Result: " + r.result());
    }
}
