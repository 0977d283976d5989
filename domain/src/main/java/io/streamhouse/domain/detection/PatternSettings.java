package io.streamhouse.domain.detection;

import static io.streamhouse.domain.decision.RuleParameters.positiveDecimal;
import static io.streamhouse.domain.decision.RuleParameters.positiveDouble;
import static io.streamhouse.domain.decision.RuleParameters.positiveDuration;
import static io.streamhouse.domain.decision.RuleParameters.positiveInt;
import static io.streamhouse.domain.decision.RuleParameters.required;

import io.streamhouse.domain.decision.InvalidRuleException;
import io.streamhouse.domain.event.DecisionOutcome;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The thresholds of every CEP pattern, with the version of the definition each came from (it goes into the alert as
 * the pattern version). A pattern's definition is the {@link RuleDefinition} whose rule id is the pattern's
 * {@link Kind#ruleId()} (its kind is the same string); when the rules topic holds none, the built-in
 * {@link #defaults()} apply at version 1. The defaults are the generator's {@code PatternRules.DEFAULT}, so a detector
 * with default settings is scored against the same definitions the generator planted.
 *
 * <p>These definitions are not decision rules: the decision topology skips {@code cep-*} kinds
 * ({@link #isPatternKind}), and they do not count towards the decision rule-set version.
 */
public record PatternSettings(CardTesting cardTesting, ImpossibleTravel impossibleTravel,
                              AccountTakeover accountTakeover, ParcelSla parcelSla, Overheating overheating,
                              MaintenanceDue maintenanceDue) {

    public static final String KIND_PREFIX = "cep-";

    /** The patterns; each one's rule id and kind on the rules topic. */
    public enum Kind {
        CARD_TESTING("cep-card-testing"), IMPOSSIBLE_TRAVEL("cep-impossible-travel"),
        ACCOUNT_TAKEOVER("cep-account-takeover"), PARCEL_SLA("cep-parcel-sla"),
        ENGINE_OVERHEATING("cep-engine-overheating"), MAINTENANCE_DUE("cep-maintenance-due");

        private final String ruleId;

        Kind(String ruleId) {
            this.ruleId = ruleId;
        }

        public String ruleId() {
            return ruleId;
        }

        public static Kind ofRuleKind(String kind) {
            for (Kind k : values()) {
                if (k.ruleId.equals(kind)) {
                    return k;
                }
            }
            throw new InvalidRuleException("kind", "unknown pattern kind '" + kind + "'");
        }
    }

    /** ≥ minSmall authorizations ≤ smallMax, then one ≥ largeMin, on one card within window. */
    public record CardTesting(int version, boolean enabled, BigDecimal smallMax, BigDecimal largeMin, int minSmall,
                              Duration window) {
        public CardTesting {
            if (smallMax.compareTo(largeMin) >= 0) {
                throw new InvalidRuleException("parameters.smallMax", "must be below largeMin (" + largeMin + ")");
            }
        }
    }

    /** Two consecutive card-present uses of one card implying more than maxKmh. */
    public record ImpossibleTravel(int version, boolean enabled, double maxKmh, Duration retention) {
    }

    /** An address or e-mail change, then an order of at least highValue (to the new address) within window. */
    public record AccountTakeover(int version, boolean enabled, BigDecimal highValue, Duration window) {
    }

    /** Out for delivery and not delivered by promisedBy + grace. */
    public record ParcelSla(int version, boolean enabled, Duration grace, Duration retention) {
    }

    /** ≥ minReadings consecutive rising coolant readings above thresholdC within window. */
    public record Overheating(int version, boolean enabled, double thresholdC, int minReadings, Duration window) {
        public Overheating {
            if (minReadings < 2) {
                throw new InvalidRuleException("parameters.minReadings", "must be at least 2, was " + minReadings);
            }
        }
    }

    /** The odometer passing a multiple of intervalKm: a service is due. */
    public record MaintenanceDue(int version, boolean enabled, double intervalKm) {
    }

    public static PatternSettings defaults() {
        return new PatternSettings(
                new CardTesting(1, true, new BigDecimal("2.00"), new BigDecimal("500.00"), 3, Duration.ofMinutes(10)),
                new ImpossibleTravel(1, true, 900, Duration.ofHours(24)),
                new AccountTakeover(1, true, new BigDecimal("1000.00"), Duration.ofHours(1)),
                new ParcelSla(1, true, Duration.ofHours(2), Duration.ofDays(2)),
                new Overheating(1, true, 105.0, 3, Duration.ofMinutes(5)),
                new MaintenanceDue(1, true, 15_000));
    }

    public static boolean isPatternKind(String kind) {
        return kind != null && kind.startsWith(KIND_PREFIX);
    }

    /** These settings with one pattern replaced by the given definition (validated; throws naming the bad field). */
    public PatternSettings with(RuleDefinition d) {
        Objects.requireNonNull(d, "definition");
        Kind kind = Kind.ofRuleKind(d.getKind());
        if (!kind.ruleId().equals(d.getRuleId())) {
            throw new InvalidRuleException("ruleId", "a " + d.getKind() + " definition must have rule id " + kind.ruleId());
        }
        if (d.getVersion() < 1) {
            throw new InvalidRuleException("version", "must be at least 1, was " + d.getVersion());
        }
        Map<String, String> p = d.getParameters();
        int v = d.getVersion();
        boolean on = d.getEnabled();
        return switch (kind) {
            case CARD_TESTING -> new PatternSettings(new CardTesting(v, on, positiveDecimal(p, "smallMax"), positiveDecimal(p, "largeMin"),
                    positiveInt(p, "minSmall"), positiveDuration(p, "window")), impossibleTravel, accountTakeover, parcelSla,
                    overheating, maintenanceDue);
            case IMPOSSIBLE_TRAVEL -> new PatternSettings(cardTesting, new ImpossibleTravel(v, on, positiveDouble(p, "maxKmh"),
                    durationOr(p, "retention", impossibleTravel.retention())), accountTakeover, parcelSla, overheating,
                    maintenanceDue);
            case ACCOUNT_TAKEOVER -> new PatternSettings(cardTesting, impossibleTravel, new AccountTakeover(v, on,
                    positiveDecimal(p, "highValue"), positiveDuration(p, "window")), parcelSla, overheating, maintenanceDue);
            case PARCEL_SLA -> new PatternSettings(cardTesting, impossibleTravel, accountTakeover, new ParcelSla(v, on,
                    positiveDuration(p, "grace"), durationOr(p, "retention", parcelSla.retention())), overheating, maintenanceDue);
            case ENGINE_OVERHEATING -> new PatternSettings(cardTesting, impossibleTravel, accountTakeover, parcelSla,
                    new Overheating(v, on, positiveDouble(p, "thresholdC"), positiveInt(p, "minReadings"),
                            positiveDuration(p, "window")), maintenanceDue);
            case MAINTENANCE_DUE -> new PatternSettings(cardTesting, impossibleTravel, accountTakeover, parcelSla,
                    overheating, new MaintenanceDue(v, on, positiveDouble(p, "intervalKm")));
        };
    }

    /** Throws {@link InvalidRuleException} naming the first bad field of a {@code cep-*} definition. */
    public static void validate(RuleDefinition d) {
        defaults().with(d);
    }

    /** The built-in settings as definitions (version 1): what an operator starts from when changing one. */
    public static List<RuleDefinition> defaultDefinitions() {
        PatternSettings s = defaults();
        return List.of(
                definition(Kind.CARD_TESTING, Map.of("smallMax", s.cardTesting.smallMax.toPlainString(),
                        "largeMin", s.cardTesting.largeMin.toPlainString(), "minSmall", Integer.toString(s.cardTesting.minSmall),
                        "window", s.cardTesting.window.toString()),
                        "Three or more authorizations of at most 2.00, then one of 500.00 or more, on one card within 10 minutes."),
                definition(Kind.IMPOSSIBLE_TRAVEL, Map.of("maxKmh", Double.toString(s.impossibleTravel.maxKmh),
                        "retention", s.impossibleTravel.retention.toString()),
                        "Two consecutive card-present uses of a card implying more than 900 km/h."),
                definition(Kind.ACCOUNT_TAKEOVER, Map.of("highValue", s.accountTakeover.highValue.toPlainString(),
                        "window", s.accountTakeover.window.toString()),
                        "An address or e-mail change, then an order of 1000.00 or more shipped to the new address within 1 hour."),
                definition(Kind.PARCEL_SLA, Map.of("grace", s.parcelSla.grace.toString(),
                        "retention", s.parcelSla.retention.toString()),
                        "Out for delivery and not delivered by the promised time plus 2 hours."),
                definition(Kind.ENGINE_OVERHEATING, Map.of("thresholdC", Double.toString(s.overheating.thresholdC),
                        "minReadings", Integer.toString(s.overheating.minReadings), "window", s.overheating.window.toString()),
                        "Three or more consecutive rising coolant readings above 105 °C within 5 minutes."),
                definition(Kind.MAINTENANCE_DUE, Map.of("intervalKm", Double.toString(s.maintenanceDue.intervalKm)),
                        "The odometer passed a multiple of 15,000 km: a service is due."));
    }

    private static RuleDefinition definition(Kind kind, Map<String, String> params, String description) {
        Instant epoch = Instant.parse("2026-01-01T00:00:00Z");
        return RuleDefinition.newBuilder()
                .setEnvelope(Envelopes.create(Envelopes.derivedEventId("default-rule", kind.ruleId() + ":1"), kind.ruleId(),
                        epoch, epoch, "streamhouse-defaults", EventTypes.versionOf(RuleDefinition.class), null))
                .setRuleId(kind.ruleId()).setVersion(1).setKind(kind.ruleId()).setEnabled(true)
                .setOutcome(DecisionOutcome.REVIEW).setWeight(1.0).setParameters(params).setDescription(description)
                .build();
    }

    private static Duration durationOr(Map<String, String> p, String name, Duration fallback) {
        return p.containsKey(name) ? positiveDuration(p, name) : fallback;
    }
}
