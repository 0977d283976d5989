package io.streamhouse.replay;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** A rebuild's summary: kept in the data directory ({@code replay/<id>.json}, what promote checks) and printed. */
public final class Records {
    public static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    static Path file(Path data, String shadowId) {
        return data.resolve("replay").resolve(shadowId + ".json");
    }

    static void write(Path file, Report.Summary summary) throws IOException {
        Files.createDirectories(file.getParent());
        JSON.writeValue(file.toFile(), summary);
    }

    static void print(Report.Summary summary, PrintStream out) {
        for (Report.TargetReport t : summary.targets()) {
            if (t.alerts() != null) {
                // A bounded source: the CEP shadow never reads past the cut.
                out.printf(Locale.ROOT, "%s: %,d events before the cut, rebuilt in %.1f s (%,.0f events/s, the child JVM's start included)%n",
                        t.target(), t.events(), t.durationMs() / 1000.0, t.eventsPerSecond());
            } else {
                out.printf(Locale.ROOT, "%s: %,d events rebuilt in %.1f s (%,.0f events/s), %,d read past the cut and not applied%n",
                        t.target(), t.events(), t.durationMs() / 1000.0, t.eventsPerSecond(), t.droppedPastCut());
            }
            for (Report.StoreReport s : t.stores()) {
                long equal = s.partitions().stream().filter(Report.PartitionDigest::equal).count();
                out.printf(Locale.ROOT, "  %-20s %,8d keys  %d/%d partitions equal%s%n", s.store(), s.keys(), equal, s.partitions().size(),
                        s.divergentKeys() == 0 ? "" : "  DIVERGENT: " + s.divergentKeys() + " keys");
                s.partitions().stream().filter(p -> !p.equal()).forEach(p -> out.printf(Locale.ROOT,
                        "    partition %d: live %d keys digest %s, shadow %d keys digest %s%n", p.partition(), p.liveKeys(),
                        p.liveDigest(), p.shadowKeys(), p.shadowDigest()));
                printDifferences(s.differences(), out);
            }
            if (!t.livePastCut().isEmpty()) {
                out.printf(Locale.ROOT, "  live had read past the cut on %d partition(s) when it was compared (input still flowing; "
                        + "keys touched after the cut differ for that reason alone): %s%n", t.livePastCut().size(), t.livePastCut());
            }
            if (t.alerts() != null) {
                var a = t.alerts();
                out.printf(Locale.ROOT, "  %-20s %,8d live, %,d shadow settled at the cut: %d only in live, %d only in the shadow, %d differing%n",
                        "alerts", a.liveCompared(), a.shadowCompared(), a.onlyInLive(), a.onlyInShadow(), a.differing());
                out.printf(Locale.ROOT, "  %-20s %,8d live, %,d shadow (beyond the settled horizon, or live's from input after the cut)%n", "not compared",
                        a.liveNotCompared(), a.shadowNotCompared());
                a.horizons().forEach((type, h) -> out.printf(Locale.ROOT, "    settled horizon %-20s %s%n", type, h));
                printDifferences(a.differences(), out);
            }
            if (t.decisions() != null) {
                var d = t.decisions();
                out.printf(Locale.ROOT, "  %-20s %,8d transactions before the cut, %d divergent (%d under another rule set version)%n",
                        "decisions", d.transactions(), d.divergent(), d.differentRuleSetVersion());
                printDifferences(d.differences(), out);
            }
        }
        out.printf(Locale.ROOT, "Result: %s (%d divergences) in %.1f s; shadow '%s'%n", summary.result(), summary.divergences(),
                summary.durationMs() / 1000.0, summary.shadowId());
    }

    private static void printDifferences(java.util.List<Report.Difference> differences, PrintStream out) {
        for (Report.Difference d : differences) {
            out.println("    key " + d.key() + ": " + d.reason());
            out.println("      live:   " + d.live());
            out.println("      shadow: " + d.shadow());
        }
    }

    private Records() {
    }
}
