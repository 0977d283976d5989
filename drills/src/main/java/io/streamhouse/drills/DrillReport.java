package io.streamhouse.drills;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** What a fault drill found, as JSON ({@code --json}) or printed for a reader: the load, the recovery, each check. */
record DrillReport(String scenario, String result, Load load, RecoveryWatch.Recovery recovery, DrillChecks.Result decisions,
                   DrillChecks.Delivery async, long alertsRead, List<String> repeatedAlertIds, RebuildCheck.Found rebuild,
                   LakeCheck.Found lake, CepResumeCheck.Found cep, RestoreCheck.Found restore, ClusterRecovery cluster,
                   FlinkRestoreCheck.Found flinkRestore, String loadAverage, List<String> failures) {

    /**
     * {@code asyncSentPerSecond}, {@code asyncAcknowledgedPerSecond}, {@code asyncResent}: what the asynchronous load
     * reached ({@link AsyncLoad.Reached}).
     */
    record Load(int ratePerSecond, int asyncRatePerSecond, int durationSeconds, long seed, long authorizesSent, long asyncSent,
                long elapsedMs, double asyncSentPerSecond, double asyncAcknowledgedPerSecond, long asyncResent) {
    }

    static void print(DrillReport r, PrintStream out) {
        Load l = r.load();
        RecoveryWatch.Recovery v = r.recovery();
        DrillChecks.Result d = r.decisions();
        DrillChecks.Delivery a = r.async();
        out.printf(Locale.ROOT, "Drill %s. Load: %,d authorizes at %d/s and %,d telemetry/scan events at %d/s over %.1f s (seed %d); load average %s%n",
                r.scenario(), l.authorizesSent(), l.ratePerSecond(), l.asyncSent(), l.asyncRatePerSecond(), l.elapsedMs() / 1000.0,
                l.seed(), r.loadAverage());
        out.printf(Locale.ROOT, "  telemetry/scans reached: sent at %,.0f/s, acknowledged (2xx) at %,.0f/s (first send to last answer); %,d requests sent again after a 429 or 503%n",
                l.asyncSentPerSecond(), l.asyncAcknowledgedPerSecond(), l.asyncResent());
        out.printf(Locale.ROOT, "Recovery from the fault: serving again after %s, first decided answer to an authorize sent once it was down after %s, lag of %s under %d after %s%n",
                ms(v.componentBackAfterMs()), ms(v.firstDecidedAnswerAfterMs()), v.lagGroups(), v.lagBound(), ms(v.lagNormalAfterMs()));
        if (v.answeringAgainMeans() != null) {
            out.printf(Locale.ROOT, "Answering again (the figure of the 10 s goal, answeringAgainAfterMs): %s: %s%n",
                    ms(v.answeringAgainAfterMs()), v.answeringAgainMeans());
        }
        ClusterRecovery c = r.cluster();
        if (c != null) {
            out.printf(Locale.ROOT, "Cluster: killed %s (%s); %s after %s: before %s, after %s; %s after %s%n", c.component(), c.chosenBecause(),
                    c.servingAgainMeans(), ms(v.componentBackAfterMs()), c.placementBefore(), c.placementAfter(), c.rejoinedMeans(),
                    ms(c.rejoinedAfterMs()));
        }
        if (r.flinkRestore() != null) {
            out.printf(Locale.ROOT, "Flink: latest checkpoint completed before the kill %s; the job restored from %s%s%n",
                    r.flinkRestore().completedAtKill(), r.flinkRestore().restoredFrom(),
                    r.flinkRestore().note() == null ? "" : " (" + r.flinkRestore().note() + ")");
        }
        RecoveryWatch.Answering w = v.answering();
        if (w != null) {
            AnsweringAgain.Result ar = w.result();
            out.printf(Locale.ROOT, "  %s killed, %s looked up through %s every 100 ms: first 200 %s (%s, served by %s; %d of %d lookups sent "
                            + "once it was down got no 200 before it), fresh again after %s (served by %s); %s ready again after %s%s%n",
                    w.killed(), w.lookup(), w.through(), ms(ar.answeringAgainAfterMs()),
                    ar.staleAtFirst() == null ? "-" : ar.staleAtFirst() ? "stale: a standby answered" : "fresh",
                    ar.servedByAtFirst(), ar.notAnsweredAfterDown(), ar.lookupsAfterDown(), ms(ar.freshAgainAfterMs()),
                    ar.servedByWhenFresh(), w.killed(), ms(v.componentBackAfterMs()), w.note() == null ? "" : "; " + w.note());
        }
        out.printf(Locale.ROOT, "Answers: %,d answered (%,d decided, %,d fallbacks), %,d refused with 503 (the client was told; "
                        + "%,d of them decided anyway, once), %d request errors (neither a decision nor a refusal)%n",
                d.answered(), d.decided(), d.fallbacks(), d.refused(), d.refusedDecided(), d.requestErrors());
        out.printf(Locale.ROOT, "Decisions on the log: %d lost, %d conflicting, %d identical duplicates; %d answers unlike the log%n",
                d.lost(), d.conflicting(), d.identicalDuplicates(), d.answerMismatches());
        d.examples().forEach((check, ids) -> out.println("  " + check + ": " + ids));
        out.printf(Locale.ROOT, "Telemetry and scans: %,d sent, %,d accepted, %d refused, %d failed (no answer or 5xx, the client was told); "
                + "%d accepted but lost, %d on their topic twice%s%n", a.sent(), a.accepted(), a.refused(), a.failed(), a.lost(), a.duplicated(),
                a.examples().isEmpty() ? "" : " " + a.examples());
        out.printf(Locale.ROOT, "Alerts: %,d read, %d ids written more than once%s%n", r.alertsRead(), r.repeatedAlertIds().size(),
                r.repeatedAlertIds().isEmpty() ? "" : " " + r.repeatedAlertIds());
        out.printf(Locale.ROOT, "Rebuild: %s (%s divergences, exit %d), shadow %s; %s%n", r.rebuild().result(),
                r.rebuild().divergences(), r.rebuild().exitCode(), r.rebuild().shadowId(), r.rebuild().discard());
        if (r.rebuild().details() != null) {
            out.printf(Locale.ROOT, "  the rebuild's summary, every divergent key with both values: %s%n", r.rebuild().details());
        }
        LakeCheck.Found k = r.lake();
        if (!k.ran()) {
            out.println("Lake: not checked (" + k.note() + ")");
        } else {
            out.printf(Locale.ROOT, "Lake: Iceberg %s Kafka over %d tables (%d missing, %d extra, %d rows twice)%s%n",
                    Boolean.TRUE.equals(k.equal()) ? "equals" : "does NOT equal", k.tables().size(), k.missing(), k.extra(),
                    k.duplicateRows(), k.note() == null ? "" : "; " + k.note());
            k.tables().stream().filter(t -> !t.equal()).forEach(t -> out.println("  " + t));
        }
        if (r.cep() != null) {
            out.printf("CEP: newest retained checkpoint at the kill %s; resumed from %s%n", r.cep().newestCheckpointAtKill(), r.cep().resumedFrom());
        }
        RestoreCheck.Found s = r.restore();
        if (s != null) {
            RestoreTimeline.Restore t = s.restore();
            out.printf(Locale.ROOT, "Restore: %s; %,d records now on the %d changelog topics; ConsumerPerformance on them %.0f records/s "
                            + "(fetch time); ratio %s; the api's start until ready %d ms%s%n",
                    t == null ? "not in the api's log"
                            : String.format(Locale.ROOT, "Streams restored %,d records into %d store partitions in %.1f s (%.0f records/s)",
                            t.records(), t.partitions(), t.seconds(), t.recordsPerSec()),
                    s.changelogRecords(), s.changelogs().size(), s.consumerPerfFetchRecordsPerSec(),
                    s.ratio() == null ? "-" : String.format(Locale.ROOT, "%.2f", s.ratio()), s.startReadyMs(),
                    s.note() == null ? "" : "; " + s.note());
        }
        r.failures().forEach(f -> out.println("FAILED: " + f));
        out.println("Result: " + r.result());
    }

    private static String ms(Long millis) {
        return millis == null ? "never (timeout)" : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
