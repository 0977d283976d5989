package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.detection.PatternSettings.Kind;
import io.streamhouse.domain.events.GreatCircle;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.CepThresholds;
import io.streamhouse.domain.state.StampedFact;
import org.apache.flink.cep.EventComparator;
import org.apache.flink.cep.nfa.aftermatch.AfterMatchSkipStrategy;
import org.apache.flink.cep.pattern.Pattern;
import org.apache.flink.cep.pattern.conditions.IterativeCondition;

import java.io.Serializable;
import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;

/**
 * The patterns as Flink CEP {@link Pattern}s over stamped facts (engine {@code cep}). A compiled pattern is fixed, so
 * no threshold is in it: every condition reads the thresholds the stamping step wrote onto the fact it decides on
 * ({@link StampFacts}), and {@code within} is the largest window a definition may ask for, the condition checking the
 * actual one. The NFA chooses the events of an occurrence; the pattern's pure function ({@link SubjectPattern#find})
 * then builds its finding from exactly those events, so an alert says what the pure function says of them.
 *
 * <p>Assumes the subject's facts arrive as the pattern's {@code factOf} and {@code keeps} leave them (the stamping
 * step drops the rest), so {@code next} means "the subject's next relevant fact".
 */
final class LibraryPatterns {
    /** Largest card-testing window a definition may set: the pattern's {@code within}. */
    static final Duration CARD_TESTING_MAX_WINDOW = Duration.ofHours(1);
    /** Largest account-takeover window a definition may set: the pattern's {@code within}. */
    static final Duration ACCOUNT_TAKEOVER_MAX_WINDOW = Duration.ofHours(24);
    /** Largest overheating window (first to last reading of a run) a definition may set: the pattern's within. */
    static final Duration OVERHEATING_MAX_WINDOW = Duration.ofHours(1);
    /** Largest impossible-travel retention (gap between two uses compared): {@code within}. */
    static final Duration IMPOSSIBLE_TRAVEL_MAX_RETENTION = Duration.ofHours(24);
    /**
     * Largest parcel retention: {@code within} of both parcel patterns. A deadline further than this after its
     * out-for-delivery scan is reported by neither (the partial match times out first).
     */
    static final Duration PARCEL_MAX_RETENTION = Duration.ofDays(2);
    /** Two readings compared for maintenance: at most this apart (the pattern's retention). */
    static final Duration MAINTENANCE_WITHIN = Duration.ofHours(1);

    /** Why the library pattern cannot take these settings (a window beyond its {@code within}), if it cannot. */
    static Optional<String> refusal(PatternSettings s, Kind kind) {
        return switch (kind) {
            case CARD_TESTING -> beyond("window", s.cardTesting().window(), CARD_TESTING_MAX_WINDOW);
            case ACCOUNT_TAKEOVER -> beyond("window", s.accountTakeover().window(), ACCOUNT_TAKEOVER_MAX_WINDOW);
            case ENGINE_OVERHEATING -> beyond("window", s.overheating().window(), OVERHEATING_MAX_WINDOW);
            case IMPOSSIBLE_TRAVEL -> beyond("retention", s.impossibleTravel().retention(), IMPOSSIBLE_TRAVEL_MAX_RETENTION);
            case PARCEL_SLA -> beyond("retention", s.parcelSla().retention(), PARCEL_MAX_RETENTION);
            case MAINTENANCE_DUE -> Optional.empty();
        };
    }

    private static Optional<String> beyond(String parameter, Duration asked, Duration within) {
        return asked.compareTo(within) > 0
                ? Optional.of(parameter + " " + asked + " is longer than the CEP pattern's within, " + within)
                : Optional.empty();
    }

    static Pattern<StampedFact, ?> of(Kind kind) {
        return switch (kind) {
            // ≥ minSmall smalls, then a large within the window of the first. Every small starts a partial match; the
            // large completes those whose first small is inside the window, the earliest (all smalls in the window) is
            // emitted, and skipping past it drops the others and every small before the large: the next card test
            // needs new smalls, as the pure function clears them.
            case CARD_TESTING -> Pattern.<StampedFact>begin("smalls", AfterMatchSkipStrategy.skipPastLastEvent())
                    .where(new SmallPayment()).oneOrMore()
                    .followedBy("large").where(new CompletesCardTest())
                    .within(CARD_TESTING_MAX_WINDOW);
            // Address or e-mail changes, then a high-value order within the window of the first. Every change starts a
            // partial match that takes every later change (relaxed contiguity), so an order completes one match per
            // change in its window; no skip, since a later order may use the same changes (as the pure function does).
            // The earliest start comes first, the widest match: AlertsOfMatches alerts it and drops the nested ones.
            case ACCOUNT_TAKEOVER -> Pattern.<StampedFact>begin(CHANGES).where(new CustomerChange()).oneOrMore()
                    .followedByAny("order").where(new CompletesTakeover())
                    .within(ACCOUNT_TAKEOVER_MAX_WINDOW);
            // A run: consecutive readings, each hot, hotter than the one before and within the window of the first. A
            // pattern ending in a loop completes a match at every reading the run takes, one per reading it could have
            // started at, earliest start first: AlertsOfMatches alerts the widest (the run so far) once it is long
            // enough, each longer one superseding the one before, so a growing run is revised as it grows.
            case ENGINE_OVERHEATING -> Pattern.<StampedFact>begin(RUN).where(new ContinuesRun()).oneOrMore().consecutive()
                    .within(OVERHEATING_MAX_WINDOW);
            // Each use and the card's next one.
            case IMPOSSIBLE_TRAVEL -> Pattern.<StampedFact>begin("from").where(new Any())
                    .next("to").where(new TooFast())
                    .within(IMPOSSIBLE_TRAVEL_MAX_RETENTION);
            // Out for delivery (with a promise), not sent out again, then delivered. A match is a delivery: late or
            // not, the pure function decides. Never delivered is the other pattern, parcelDeadline().
            case PARCEL_SLA -> Pattern.<StampedFact>begin(OUT).where(new OutForDelivery(true))
                    .notFollowedBy("sent-again").where(new OutForDelivery(false))
                    .followedBy(DELIVERED).where(new DeliveredWithinRetention())
                    .within(PARCEL_MAX_RETENTION);
            // Each reading and the vehicle's next one.
            case MAINTENANCE_DUE -> Pattern.<StampedFact>begin("from").where(new Any())
                    .next("to").where(new PassesServiceMark())
                    .within(MAINTENANCE_WITHIN);
            default -> throw new IllegalArgumentException(kind + " does not run on the CEP library yet");
        };
    }

    static final String CHANGES = "changes";
    static final String RUN = "run";
    static final String OUT = "out";
    static final String DELIVERED = "delivered";
    static final String DEADLINE = "deadline";

    /**
     * Parcel never delivered: out for delivery (with a promise), neither delivered nor sent out again, then that scan's
     * own deadline fact ({@link ParcelDeadlines}), which comes when event time passes the deadline. Its own CEP
     * operator: the pattern above must still see a delivery after the deadline (delivered late), and a pattern whose
     * last stage takes either would end its partial match at the deadline.
     */
    static Pattern<StampedFact, ?> parcelDeadline() {
        return Pattern.<StampedFact>begin(OUT).where(new OutForDelivery(true))
                .notFollowedBy("delivered-or-sent-again").where(new DeliveredOrSentAgain())
                .followedBy(DEADLINE).where(new DeadlineOfTheScan())
                .within(PARCEL_MAX_RETENTION);
    }

    /** Ties in event time are broken by event id, as the pure functions order facts. */
    static final class ByEventId implements EventComparator<StampedFact> {
        private static final Comparator<StampedFact> ORDER = Comparator
                .comparingLong((StampedFact f) -> f.getFact().getOccurredAtMs())
                .thenComparing(f -> f.getFact().getEventId());

        @Override
        public int compare(StampedFact a, StampedFact b) {
            return ORDER.compare(a, b);
        }
    }

    /** The settings stamped on a fact, decoded once per distinct stamp (consecutive facts mostly share one). */
    static final class StampedSettings implements Serializable {
        private final Kind kind;
        private transient CepThresholds last;
        private transient PatternSettings settings;

        StampedSettings(Kind kind) {
            this.kind = kind;
        }

        PatternSettings of(StampedFact f) {
            CepThresholds t = f.getThresholds();
            if (settings == null || !t.equals(last)) {
                settings = Thresholds.settings(t, kind);
                last = t;
            }
            return settings;
        }
    }

    private static long at(StampedFact f) {
        return f.getFact().getOccurredAtMs();
    }

    private static StampedFact first(IterativeCondition.Context<StampedFact> ctx, String stage) throws Exception {
        for (StampedFact f : ctx.getEventsForPattern(stage)) {
            return f;
        }
        throw new IllegalStateException("no event in stage " + stage);
    }

    static final class Any extends IterativeCondition<StampedFact> {
        @Override
        public boolean filter(StampedFact f, Context<StampedFact> ctx) {
            return true;
        }
    }

    static final class SmallPayment extends IterativeCondition<StampedFact> {
        private final StampedSettings settings = new StampedSettings(Kind.CARD_TESTING);

        @Override
        public boolean filter(StampedFact f, Context<StampedFact> ctx) {
            PatternSettings.CardTesting p = settings.of(f).cardTesting();
            return p.enabled() && f.getFact().getMoney().getAmount().compareTo(p.smallMax()) <= 0;
        }
    }

    /** A large payment, with at least minSmall smalls in the partial match, the first within the window before it. */
    static final class CompletesCardTest extends IterativeCondition<StampedFact> {
        private final StampedSettings settings = new StampedSettings(Kind.CARD_TESTING);

        @Override
        public boolean filter(StampedFact f, Context<StampedFact> ctx) throws Exception {
            PatternSettings.CardTesting p = settings.of(f).cardTesting();
            if (!p.enabled() || f.getFact().getMoney().getAmount().compareTo(p.largeMin()) < 0) {
                return false;
            }
            int smalls = 0;
            long firstAt = Long.MAX_VALUE;
            for (StampedFact s : ctx.getEventsForPattern("smalls")) {
                smalls++;
                firstAt = Math.min(firstAt, at(s));
            }
            return smalls >= p.minSmall() && firstAt >= at(f) - p.window().toMillis();
        }
    }

    static final class CustomerChange extends IterativeCondition<StampedFact> {
        @Override
        public boolean filter(StampedFact f, Context<StampedFact> ctx) {
            return !AccountTakeoverPattern.ORDER.equals(f.getFact().getKind());
        }
    }

    /**
     * A high-value order, the partial match's first change within the actual window before it, and, when an address
     * changed, shipping to the last new address.
     */
    static final class CompletesTakeover extends IterativeCondition<StampedFact> {
        private final StampedSettings settings = new StampedSettings(Kind.ACCOUNT_TAKEOVER);

        @Override
        public boolean filter(StampedFact f, Context<StampedFact> ctx) throws Exception {
            PatternSettings.AccountTakeover p = settings.of(f).accountTakeover();
            CepFact order = f.getFact();
            if (!p.enabled() || !AccountTakeoverPattern.ORDER.equals(order.getKind())
                    || order.getMoney().getAmount().compareTo(p.highValue()) < 0
                    || at(first(ctx, CHANGES)) < at(f) - p.window().toMillis()) {
                return false;
            }
            CepFact lastAddress = null;
            for (StampedFact c : ctx.getEventsForPattern(CHANGES)) {
                if (AccountTakeoverPattern.ADDRESS.equals(c.getFact().getKind())) {
                    lastAddress = c.getFact();
                }
            }
            return lastAddress == null || lastAddress.getAddress().equals(order.getAddress());
        }
    }

    /** A hot reading that starts a run, or continues the partial match's: hotter than its last, within the window of its first. */
    static final class ContinuesRun extends IterativeCondition<StampedFact> {
        private final StampedSettings settings = new StampedSettings(Kind.ENGINE_OVERHEATING);

        @Override
        public boolean filter(StampedFact f, Context<StampedFact> ctx) throws Exception {
            PatternSettings.Overheating p = settings.of(f).overheating();
            double coolant = f.getFact().getReading();
            if (!p.enabled() || coolant <= p.thresholdC()) {
                return false;
            }
            StampedFact first = null;
            StampedFact last = null;
            for (StampedFact r : ctx.getEventsForPattern(RUN)) {
                first = first == null ? r : first;
                last = r;
            }
            return first == null
                    || coolant > last.getFact().getReading() && at(f) <= at(first) + p.window().toMillis();
        }
    }

    static final class TooFast extends IterativeCondition<StampedFact> {
        private final StampedSettings settings = new StampedSettings(Kind.IMPOSSIBLE_TRAVEL);

        @Override
        public boolean filter(StampedFact to, Context<StampedFact> ctx) throws Exception {
            PatternSettings.ImpossibleTravel p = settings.of(to).impossibleTravel();
            StampedFact from = first(ctx, "from");
            if (!p.enabled() || at(to) - at(from) > p.retention().toMillis()) {
                return false;
            }
            CepFact a = from.getFact(), b = to.getFact();
            return GreatCircle.speedKmh(a.getLocation(), a.getOccurredAtMs(), b.getLocation(), b.getOccurredAtMs())
                    > p.maxKmh();
        }
    }

    static final class PassesServiceMark extends IterativeCondition<StampedFact> {
        private final StampedSettings settings = new StampedSettings(Kind.MAINTENANCE_DUE);

        @Override
        public boolean filter(StampedFact to, Context<StampedFact> ctx) throws Exception {
            PatternSettings.MaintenanceDue p = settings.of(to).maintenanceDue();
            double before = first(ctx, "from").getFact().getReading();
            return p.enabled() && Math.floor(to.getFact().getReading() / p.intervalKm())
                    > Math.floor(before / p.intervalKm());
        }
    }

    static final class OutForDelivery extends IterativeCondition<StampedFact> {
        private final boolean withPromise;

        OutForDelivery(boolean withPromise) {
            this.withPromise = withPromise;
        }

        @Override
        public boolean filter(StampedFact f, Context<StampedFact> ctx) {
            return ParcelSlaPattern.OUT_FOR_DELIVERY.equals(f.getFact().getKind())
                    && (!withPromise || f.getFact().getDueAtMs() != null);
        }
    }

    static final class DeliveredOrSentAgain extends IterativeCondition<StampedFact> {
        @Override
        public boolean filter(StampedFact f, Context<StampedFact> ctx) {
            return ParcelSlaPattern.DELIVERED.equals(f.getFact().getKind())
                    || ParcelSlaPattern.OUT_FOR_DELIVERY.equals(f.getFact().getKind());
        }
    }

    /** The deadline fact of the partial match's own out-for-delivery scan (another scan's deadline is not its). */
    static final class DeadlineOfTheScan extends IterativeCondition<StampedFact> {
        @Override
        public boolean filter(StampedFact f, Context<StampedFact> ctx) throws Exception {
            return ParcelDeadlines.isDeadlineOf(f, first(ctx, OUT));
        }
    }

    /** A delivery scan within the parcel's actual retention after the out-for-delivery scan. */
    static final class DeliveredWithinRetention extends IterativeCondition<StampedFact> {
        private final StampedSettings settings = new StampedSettings(Kind.PARCEL_SLA);

        @Override
        public boolean filter(StampedFact f, Context<StampedFact> ctx) throws Exception {
            if (!ParcelSlaPattern.DELIVERED.equals(f.getFact().getKind())) {
                return false;
            }
            return at(f) - at(first(ctx, OUT)) <= settings.of(f).parcelSla().retention().toMillis();
        }
    }

    private LibraryPatterns() {
    }
}
