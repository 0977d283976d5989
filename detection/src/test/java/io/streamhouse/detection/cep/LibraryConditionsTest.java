package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.events.GreatCircle;
import io.streamhouse.domain.state.StampedFact;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;
import org.apache.flink.cep.pattern.conditions.IterativeCondition;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.streamhouse.detection.cep.CepEvents.payment;
import static io.streamhouse.detection.cep.CepEvents.presentPayment;
import static io.streamhouse.detection.cep.CepEvents.reading;
import static io.streamhouse.detection.cep.CepEvents.scan;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library patterns' conditions on their own, given a partial match, when a stamped fact arrives, expect it taken
 * or not: each reads the thresholds stamped on the fact it decides on, and checks the actual window where the pattern's
 * {@code within} is the largest one allowed. (In the job, the pattern's pure function re-checks what the NFA matched;
 * these tests show the conditions alone select the right events.)
 */
class LibraryConditionsTest {
    private static final PatternSettings V1 = PatternSettings.defaults();

    @Test
    void anAccountTakeoverWindowBeyondThePatternsWithinIsRefused() {
        PatternSettings d = PatternSettings.defaults();
        var day = new PatternSettings(d.cardTesting(), d.impossibleTravel(), new PatternSettings.AccountTakeover(2, true,
                new BigDecimal("1000.00"), Duration.ofHours(24)), d.parcelSla(), d.overheating(), d.maintenanceDue());
        var dayAndASecond = new PatternSettings(d.cardTesting(), d.impossibleTravel(), new PatternSettings.AccountTakeover(3,
                true, new BigDecimal("1000.00"), Duration.ofHours(24).plusSeconds(1)), d.parcelSla(), d.overheating(),
                d.maintenanceDue());

        assertThat(LibraryPatterns.refusal(day, PatternSettings.Kind.ACCOUNT_TAKEOVER)).isEmpty();
        assertThat(LibraryPatterns.refusal(dayAndASecond, PatternSettings.Kind.ACCOUNT_TAKEOVER)).hasValueSatisfying(
                r -> assertThat(r).contains("longer than the CEP pattern's within"));
    }

    @Test
    void aSmallPaymentIsAtMostTheStampedSmallMax() throws Exception {
        var small = new LibraryPatterns.SmallPayment();
        assertThat(small.filter(cardFact("a", "2.00", T0, V1), partial(Map.of()))).isTrue();
        assertThat(small.filter(cardFact("b", "2.01", T0, V1), partial(Map.of()))).isFalse();
        assertThat(small.filter(cardFact("c", "2.01", T0, cardTesting(2, "2.50", 3, Duration.ofMinutes(10))),
                partial(Map.of()))).as("under v2, smallMax 2.50").isTrue();
    }

    @Test
    void aLargePaymentCompletesACardTestWithEnoughSmallsTheFirstWithinTheStampedWindow() throws Exception {
        var completes = new LibraryPatterns.CompletesCardTest();
        List<StampedFact> smalls = List.of(cardFact("s1", "1.00", T0, V1), cardFact("s2", "1.00", T0.plusSeconds(60), V1),
                cardFact("s3", "1.00", T0.plusSeconds(120), V1));
        Instant inWindow = T0.plus(Duration.ofMinutes(10));
        Instant tooLate = inWindow.plusSeconds(1);
        assertThat(completes.filter(cardFact("L", "600.00", inWindow, V1), partial(Map.of("smalls", smalls)))).isTrue();
        assertThat(completes.filter(cardFact("L", "600.00", tooLate, V1), partial(Map.of("smalls", smalls))))
                .as("10 min 1 s after the first small").isFalse();
        assertThat(completes.filter(cardFact("L", "600.00", tooLate, cardTesting(3, "2.00", 3, Duration.ofMinutes(15))),
                partial(Map.of("smalls", smalls)))).as("a 15-minute window stamped on the large payment").isTrue();
        assertThat(completes.filter(cardFact("L", "600.00", inWindow, V1), partial(Map.of("smalls", smalls.subList(0, 2)))))
                .as("two smalls").isFalse();
        assertThat(completes.filter(cardFact("L", "499.99", inWindow, V1), partial(Map.of("smalls", smalls))))
                .as("not large").isFalse();
    }

    @Test
    void twoUsesAreTooFastAboveTheStampedMaxKmh() throws Exception {
        var tooFast = new LibraryPatterns.TooFast();
        GeoPoint from = GeoPoint.newBuilder().setLat(0).setLon(0).build();
        GeoPoint to = GeoPoint.newBuilder().setLat(0).setLon(10).build();
        StampedFact first = use("a", from, T0, V1);
        assertThat(tooFast.filter(use("b", to, T0.plusMillis(travelMs(from, to, 901)), V1), partial(Map.of("from", List.of(first)))))
                .isTrue();
        assertThat(tooFast.filter(use("b", to, T0.plusMillis(travelMs(from, to, 899)), V1), partial(Map.of("from", List.of(first)))))
                .isFalse();
        PatternSettings slower = new PatternSettings(V1.cardTesting(), new PatternSettings.ImpossibleTravel(2, true, 800,
                Duration.ofHours(24)), V1.accountTakeover(), V1.parcelSla(), V1.overheating(), V1.maintenanceDue());
        assertThat(tooFast.filter(use("b", to, T0.plusMillis(travelMs(from, to, 899)), slower),
                partial(Map.of("from", List.of(first))))).as("maxKmh 800 stamped on the second use").isTrue();
    }

    @Test
    void maintenanceIsDueWhenTheNextReadingPassesAMarkOfTheStampedInterval() throws Exception {
        var passes = new LibraryPatterns.PassesServiceMark();
        MaintenanceDuePattern p = new MaintenanceDuePattern();
        StampedFact before = stamped(p, V1, reading("r1", "van", 90, 14_999.9, T0));
        assertThat(passes.filter(stamped(p, V1, reading("r2", "van", 90, 15_000.1, T0.plusSeconds(30))),
                partial(Map.of("from", List.of(before))))).isTrue();
        assertThat(passes.filter(stamped(p, V1, reading("r2", "van", 90, 14_999.95, T0.plusSeconds(30))),
                partial(Map.of("from", List.of(before))))).isFalse();
    }

    @Test
    void aDeliveryCountsWithinTheStampedRetentionOfTheOutForDeliveryScan() throws Exception {
        var delivered = new LibraryPatterns.DeliveredWithinRetention();
        ParcelSlaPattern p = new ParcelSlaPattern();
        StampedFact out = stamped(p, V1, scan("o", "parcel", ParcelStatus.OUT_FOR_DELIVERY, T0.plusSeconds(3600), T0));
        Instant retentionEnd = T0.plus(V1.parcelSla().retention());
        assertThat(delivered.filter(stamped(p, V1, scan("d", "parcel", ParcelStatus.DELIVERED, null, retentionEnd)),
                partial(Map.of("out", List.of(out))))).isTrue();
        assertThat(delivered.filter(stamped(p, V1, scan("d", "parcel", ParcelStatus.DELIVERED, null, retentionEnd.plusMillis(1))),
                partial(Map.of("out", List.of(out))))).isFalse();
        assertThat(new LibraryPatterns.OutForDelivery(true).filter(
                stamped(p, V1, scan("o2", "parcel", ParcelStatus.OUT_FOR_DELIVERY, null, T0)), partial(Map.of())))
                .as("no promise, nothing to breach").isFalse();
    }

    private static long travelMs(GeoPoint from, GeoPoint to, double kmh) {
        return Math.round(GreatCircle.distanceKm(from, to) / kmh * 3_600_000);
    }

    private static StampedFact cardFact(String id, String amount, Instant at, PatternSettings s) {
        return stamped(new CardTestingPattern(), s, payment(id, Cards.STOLEN, amount, at));
    }

    private static StampedFact use(String id, GeoPoint where, Instant at, PatternSettings s) {
        return stamped(new ImpossibleTravelPattern(), s, presentPayment(id, Cards.STOLEN, where, Merchants.GROCER_ROTTERDAM, at));
    }

    private static <E> StampedFact stamped(SubjectPattern<E> pattern, PatternSettings s, E event) {
        return new StampedFact(pattern.subject(event), pattern.factOf(event).orElseThrow(), Thresholds.of(s, pattern.kind()));
    }

    private static PatternSettings cardTesting(int version, String smallMax, int minSmall, Duration window) {
        return new PatternSettings(new PatternSettings.CardTesting(version, true, new BigDecimal(smallMax),
                new BigDecimal("500.00"), minSmall, window), V1.impossibleTravel(), V1.accountTakeover(), V1.parcelSla(),
                V1.overheating(), V1.maintenanceDue());
    }

    /** A partial match holding these events per stage. */
    private static IterativeCondition.Context<StampedFact> partial(Map<String, List<StampedFact>> stages) {
        return new IterativeCondition.Context<>() {
            @Override
            public Iterable<StampedFact> getEventsForPattern(String name) {
                return stages.getOrDefault(name, List.of());
            }

            @Override
            public long timestamp() {
                return 0;
            }

            @Override
            public long currentProcessingTime() {
                return 0;
            }
        };
    }
}
