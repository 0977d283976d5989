package io.streamhouse.loadtests.score;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.loadtests.generator.Anomaly;
import io.streamhouse.loadtests.generator.AnomalyChecker;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Recall and precision per planted pattern, from the planted anomalies and the alerts in effect, through
 * {@link AnomalyChecker#score} (an alert matches a planted anomaly when type, subject, matched events and window are
 * the same). Only alerts of the generation count ({@code ofGeneration}); patterns the generator does not plant
 * (maintenance due) are counted, not scored. Passes when every pattern has recall 100 % and precision at least
 * {@value #MIN_PRECISION}.
 */
public record Scorecard(List<PatternScore> patterns, int outsideGeneration, int notScored) {
    public static final double MIN_PRECISION = 0.995;
    /** The patterns the generator plants, in the order the report lists them. */
    public static final List<AlertType> PLANTED = List.of(AlertType.CARD_TESTING, AlertType.IMPOSSIBLE_TRAVEL,
            AlertType.ACCOUNT_TAKEOVER, AlertType.PARCEL_SLA_BREACH, AlertType.ENGINE_OVERHEATING);

    public record PatternScore(AlertType type, AnomalyChecker.Score score) {
        public boolean passes() {
            return score.recall() == 1.0 && score.precision() >= MIN_PRECISION;
        }
    }

    public Scorecard {
        patterns = List.copyOf(patterns);
    }

    public static Scorecard of(List<Anomaly> planted, List<Alert> inEffect, Predicate<Alert> ofGeneration) {
        Map<AlertType, List<Anomaly>> expected = new EnumMap<>(AlertType.class);
        Map<AlertType, List<Anomaly>> found = new EnumMap<>(AlertType.class);
        for (AlertType t : PLANTED) {
            expected.put(t, new ArrayList<>());
            found.put(t, new ArrayList<>());
        }
        planted.forEach(a -> expected.computeIfAbsent(a.type(), t -> new ArrayList<>()).add(a));
        int outside = 0;
        int notScored = 0;
        for (Alert a : inEffect) {
            if (!ofGeneration.test(a)) {
                outside++;
            } else if (!PLANTED.contains(a.getType())) {
                notScored++;
            } else {
                found.get(a.getType()).add(anomalyOf(a));
            }
        }
        List<PatternScore> scores = new ArrayList<>();
        for (AlertType t : PLANTED) {
            scores.add(new PatternScore(t, AnomalyChecker.score(expected.get(t), found.get(t))));
        }
        return new Scorecard(scores, outside, notScored);
    }

    /** The alert as the occurrence it reports (its attributes as the parameters, which identity ignores). */
    public static Anomaly anomalyOf(Alert a) {
        return new Anomaly(a.getType(), a.getSubject().getKind(), a.getSubject().getId(), a.getMatchedEventIds(),
                a.getWindowStart(), a.getWindowEnd(), a.getAttributes());
    }

    public boolean passes() {
        return patterns.stream().allMatch(PatternScore::passes);
    }

    /**
     * The table, then every missed planted anomaly and every extra alert by name; a miss says how many of its events
     * the CEP job got behind its watermark ({@code lateEventIds}: those on its late-events topics).
     */
    public void print(PrintStream out, Set<String> lateEventIds) {
        out.printf(Locale.ROOT, "%-20s %8s %8s %8s %9s %10s  %s%n", "pattern", "planted", "alerted", "matched", "recall",
                "precision", "");
        for (PatternScore p : patterns) {
            AnomalyChecker.Score s = p.score();
            out.printf(Locale.ROOT, "%-20s %8d %8d %8d %8.2f%% %9.2f%%  %s%n", name(p.type()), s.expected(), s.found(),
                    s.truePositives(), 100 * s.recall(), 100 * s.precision(), p.passes() ? "ok" : "FAIL");
        }
        for (PatternScore p : patterns) {
            for (Anomaly a : p.score().missed()) {
                long late = a.eventIds().stream().filter(lateEventIds::contains).count();
                out.println("  missed " + describe(a) + (late > 0 ? " (" + late + " of its " + a.eventIds().size()
                        + " events reached the CEP job behind its watermark)" : ""));
            }
            for (Anomaly a : p.score().spurious()) {
                out.println("  extra  " + describe(a));
            }
        }
    }

    public static String name(AlertType t) {
        return switch (t) {
            case CARD_TESTING -> "card testing";
            case IMPOSSIBLE_TRAVEL -> "impossible travel";
            case ACCOUNT_TAKEOVER -> "account takeover";
            case PARCEL_SLA_BREACH -> "parcel SLA";
            case ENGINE_OVERHEATING -> "engine overheating";
            default -> t.name();
        };
    }

    public static String describe(Anomaly a) {
        return a.type() + " " + a.subjectKind().name().toLowerCase(Locale.ROOT) + " " + a.subjectId() + " window "
                + a.windowStart() + " .. " + a.windowEnd() + " events " + a.eventIds();
    }
}
