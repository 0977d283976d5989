package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Address;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Hubs;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.EitherTypeInfo;
import org.apache.flink.types.Either;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.streamhouse.detection.cep.CepEvents.DELI_NEW_YORK;
import static io.streamhouse.detection.cep.CepEvents.NEW_YORK;
import static io.streamhouse.detection.cep.CepEvents.addressChanged;
import static io.streamhouse.detection.cep.CepEvents.emailChanged;
import static io.streamhouse.detection.cep.CepEvents.order;
import static io.streamhouse.detection.cep.CepEvents.presentPayment;
import static io.streamhouse.detection.cep.CepEvents.reading;
import static io.streamhouse.detection.cep.CepEvents.scan;
import static io.streamhouse.domain.testdata.Times.ONE_HOUR;
import static io.streamhouse.domain.testdata.Times.ONE_MINUTE;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/** Harness tests of the patterns other than card testing: given events, when event time passes, expect alerts. */
class OtherPatternsMatcherTest {

    @Nested
    class ImpossibleTravel {
        private MatcherHarness<TransactionAuthorizationRequested> matcher() throws Exception {
            return new MatcherHarness<>(new ImpossibleTravelPattern(), AvroTypes.of(TransactionAuthorizationRequested.class),
                    TransactionAuthorizationRequested::getCardToken);
        }

        @Test
        void rotterdamThenNewYorkWithinTwoHoursIsImpossible() throws Exception {
            try (var m = matcher()) {
                m.send(presentPayment("p1", Cards.STOLEN, Hubs.ROTTERDAM_POS, Merchants.GROCER_ROTTERDAM, T0))
                        .send(presentPayment("p2", Cards.STOLEN, NEW_YORK, DELI_NEW_YORK, T0.plus(ONE_HOUR.multipliedBy(2))))
                        .watermark(T0.plus(ONE_HOUR.multipliedBy(3)));
                assertThat(m.newAlerts()).singleElement().satisfies(a -> {
                    assertThat(a.getType()).isEqualTo(AlertType.IMPOSSIBLE_TRAVEL);
                    assertThat(a.getMatchedEventIds()).containsExactly("evt-p1", "evt-p2");
                    assertThat(a.getAttributes()).containsEntry("toCountry", "US");
                });
            }
        }

        @Test
        void onlinePaymentsSayNothingAboutWhereTheCardIsAndAPlausibleTripIsNoAlert() throws Exception {
            try (var m = matcher()) {
                TransactionAuthorizationRequested online = presentPayment("p2", Cards.ALICE, NEW_YORK, DELI_NEW_YORK,
                        T0.plus(ONE_MINUTE));
                online.setChannel(Channel.ECOMMERCE);
                m.send(presentPayment("p1", Cards.ALICE, Hubs.ROTTERDAM_POS, Merchants.GROCER_ROTTERDAM, T0))
                        .send(online)
                        .send(presentPayment("p3", Cards.ALICE, Hubs.ANTWERP_POS, Merchants.JEWELLER_ANTWERP,
                                T0.plus(ONE_HOUR)))
                        .watermark(T0.plus(Duration.ofDays(2)));
                assertThat(m.newAlerts()).isEmpty();
                assertThat(m.keyedStateEntries()).isZero();
                assertThat(m.eventTimeTimers()).isZero();
            }
        }
    }

    @Nested
    class AccountTakeover {
        private final TypeInformation<Either<CustomerEvent, OrderEvent>> type =
                new EitherTypeInfo<>(AvroTypes.of(CustomerEvent.class), AvroTypes.of(OrderEvent.class));
        private final Address newAddress = SampleEvents.address("Dam 1", "Amsterdam");
        private final Address oldAddress = SampleEvents.address("Coolsingel 40", "Rotterdam");

        private MatcherHarness<Either<CustomerEvent, OrderEvent>> matcher() throws Exception {
            return new MatcherHarness<>(new AccountTakeoverPattern(), type,
                    e -> e.isLeft() ? e.left().getCustomerId() : e.right().getCustomerId());
        }

        @Test
        void anAddressChangeThenAHighValueOrderToTheNewAddressWithinAnHour() throws Exception {
            try (var m = matcher()) {
                m.send(Either.Left(addressChanged("c1", "cust-7", newAddress, T0)))
                        .send(Either.Right(order("o1", "order-1", "cust-7", "1499.00", newAddress, T0.plus(ONE_MINUTE.multipliedBy(40)))))
                        .watermark(T0.plus(ONE_HOUR));
                assertThat(m.newAlerts()).singleElement().satisfies(a -> {
                    assertThat(a.getType()).isEqualTo(AlertType.ACCOUNT_TAKEOVER);
                    assertThat(a.getSubject().getKind()).isEqualTo(SubjectKind.CUSTOMER);
                    assertThat(a.getSubject().getId()).isEqualTo("cust-7");
                    assertThat(a.getMatchedEventIds()).containsExactly("evt-c1", "evt-o1");
                });
                m.watermark(T0.plus(ONE_HOUR.multipliedBy(5)));
                assertThat(m.keyedStateEntries()).isZero();
                assertThat(m.eventTimeTimers()).isZero();
            }
        }

        @Test
        void anEmailChangeCountsAndAnOrderToTheOldAddressOrAfterTheWindowDoesNot() throws Exception {
            try (var m = matcher()) {
                m.send(Either.Left(emailChanged("e1", "cust-8", T0)))
                        .send(Either.Right(order("o1", "order-1", "cust-8", "1000.00", oldAddress, T0.plus(ONE_MINUTE))))
                        .send(Either.Left(addressChanged("c2", "cust-9", newAddress, T0)))
                        .send(Either.Right(order("o2", "order-2", "cust-9", "5000.00", oldAddress, T0.plus(ONE_MINUTE))))
                        .send(Either.Right(order("o3", "order-3", "cust-9", "5000.00", newAddress, T0.plus(ONE_HOUR).plusMillis(1))))
                        .watermark(T0.plus(ONE_HOUR.multipliedBy(2)));
                List<Alert> alerts = m.newAlerts();
                assertThat(alerts).singleElement().satisfies(a -> {
                    assertThat(a.getSubject().getId()).isEqualTo("cust-8");
                    assertThat(a.getAttributes()).containsEntry("changes", "email");
                });
            }
        }
    }

    @Nested
    class ParcelSla {
        private final Instant promisedBy = T0.plus(ONE_HOUR);
        private final Instant deadline = promisedBy.plus(Duration.ofHours(2));

        private MatcherHarness<ParcelScanned> matcher() throws Exception {
            return new MatcherHarness<>(new ParcelSlaPattern(), AvroTypes.of(ParcelScanned.class), ParcelScanned::getParcelId);
        }

        @Test
        void outForDeliveryTimesOutWhenEventTimePassesTheDeadlineThenALateDeliveryRevisesTheAlert() throws Exception {
            try (var m = matcher()) {
                m.send(scan("ofd", "P-1", ParcelStatus.OUT_FOR_DELIVERY, promisedBy, T0))
                        .watermark(deadline);
                assertThat(m.newAlerts()).as("not before the deadline has passed").isEmpty();

                m.watermark(deadline.plusMillis(1));
                Alert breach = m.newAlerts().get(0);
                assertThat(breach.getType()).isEqualTo(AlertType.PARCEL_SLA_BREACH);
                assertThat(breach.getCategory()).isEqualTo(AlertCategory.PARCEL);
                assertThat(breach.getMatchedEventIds()).containsExactly("evt-ofd");
                assertThat(breach.getAttributes()).containsEntry("outcome", "never-delivered");
                assertThat(breach.getWindowEnd()).isEqualTo(deadline);

                m.send(scan("del", "P-1", ParcelStatus.DELIVERED, promisedBy, deadline.plus(ONE_MINUTE.multipliedBy(30))))
                        .watermark(deadline.plus(ONE_HOUR));
                assertThat(m.newAlerts()).singleElement().satisfies(a -> {
                    assertThat(a.getMatchedEventIds()).containsExactly("evt-ofd", "evt-del");
                    assertThat(a.getAttributes()).containsEntry("outcome", "delivered-late")
                            .containsEntry(Alerts.SUPERSEDES, breach.getAlertId());
                });

                m.watermark(deadline.plus(Duration.ofDays(3)));
                assertThat(m.newAlerts()).isEmpty();
                assertThat(m.keyedStateEntries()).isZero();
                assertThat(m.eventTimeTimers()).isZero();
            }
        }

        @Test
        void outForDeliveryAfterTheDeadlineIsABreachFromTheDeadlineToThatScanAndTheMatcherGoesOn() throws Exception {
            // Already late when it leaves: before the fix, Finding's constructor threw (window end before its start)
            // and the job crash-looped on this scan for good.
            Instant sentOut = deadline.plus(ONE_HOUR);
            Instant deliveredAt = sentOut.plus(ONE_HOUR);
            List<Alert> firstRun = new java.util.ArrayList<>();
            for (int run = 0; run < 2; run++) {
                try (var m = matcher()) {
                    m.send(scan("ofd", "P-3", ParcelStatus.OUT_FOR_DELIVERY, promisedBy, sentOut))
                            .watermark(sentOut);
                    Alert breach = m.newAlerts().get(0);
                    assertThat(breach.getType()).isEqualTo(AlertType.PARCEL_SLA_BREACH);
                    assertThat(breach.getMatchedEventIds()).containsExactly("evt-ofd");
                    assertThat(breach.getAttributes()).containsEntry("outcome", "never-delivered")
                            .containsEntry("promisedBy", promisedBy.toString());
                    assertThat(breach.getWindowStart()).isEqualTo(deadline);
                    assertThat(breach.getWindowEnd()).isEqualTo(sentOut);
                    assertThat(breach.getEnvelope().getOccurredAt()).as("alerted as of the scan that showed it")
                            .isEqualTo(sentOut);
                    assertThat(breach.getSummary()).isEqualTo("parcel P-3 not delivered by " + deadline
                            + " (never-delivered)");

                    m.send(scan("del", "P-3", ParcelStatus.DELIVERED, promisedBy, deliveredAt))
                            .watermark(deliveredAt);
                    Alert revised = m.newAlerts().get(0);
                    assertThat(revised.getMatchedEventIds()).containsExactly("evt-ofd", "evt-del");
                    assertThat(revised.getAttributes()).containsEntry("outcome", "delivered-late")
                            .containsEntry(Alerts.SUPERSEDES, breach.getAlertId());
                    assertThat(revised.getWindowStart()).isEqualTo(deadline);
                    assertThat(revised.getWindowEnd()).isEqualTo(sentOut);

                    // Processing goes on: another parcel, on time, out for delivery and breaching at its deadline.
                    m.send(scan("ofd2", "P-4", ParcelStatus.OUT_FOR_DELIVERY, deliveredAt, deliveredAt))
                            .watermark(deliveredAt.plus(Duration.ofHours(3)));
                    assertThat(m.newAlerts()).singleElement().satisfies(a ->
                            assertThat(a.getSubject().getId()).isEqualTo("P-4"));
                    assertThat(m.deadLetters()).isEmpty();

                    m.watermark(deliveredAt.plus(Duration.ofDays(3)));
                    assertThat(m.newAlerts()).isEmpty();
                    assertThat(m.keyedStateEntries()).isZero();
                    assertThat(m.eventTimeTimers()).isZero();
                    if (run == 0) {
                        firstRun.addAll(List.of(breach, revised));
                    } else {
                        assertThat(List.of(breach, revised)).as("a replay alerts the same, ids included")
                                .isEqualTo(firstRun);
                    }
                }
            }
        }

        @Test
        void outForDeliveryAfterTheDeadlineArrivingLateIsTheSameBreach() throws Exception {
            Instant sentOut = deadline.plus(ONE_HOUR);
            try (var m = matcher()) {
                m.watermark(sentOut.plus(ONE_MINUTE))
                        .send(scan("ofd", "P-5", ParcelStatus.OUT_FOR_DELIVERY, promisedBy, sentOut));
                assertThat(m.newAlerts()).singleElement().satisfies(a -> {
                    assertThat(a.getWindowStart()).isEqualTo(deadline);
                    assertThat(a.getWindowEnd()).as("event times only, not the watermark it was seen at")
                            .isEqualTo(sentOut);
                });
            }
        }

        @Test
        void aMatchWhoseAlertCannotBeBuiltIsADeadLetterWithTheReasonAndTheOtherSubjectsGoOn() throws Exception {
            SubjectPattern<ParcelScanned> failsForOneParcel = new FailingFor("P-bad", new ParcelSlaPattern());
            try (var m = new MatcherHarness<>(failsForOneParcel, AvroTypes.of(ParcelScanned.class),
                    ParcelScanned::getParcelId)) {
                m.send(scan("bad", "P-bad", ParcelStatus.OUT_FOR_DELIVERY, promisedBy, T0))
                        .send(scan("good", "P-good", ParcelStatus.OUT_FOR_DELIVERY, promisedBy, T0))
                        .watermark(deadline.plusMillis(1));
                assertThat(m.newAlerts()).singleElement().satisfies(a ->
                        assertThat(a.getSubject().getId()).isEqualTo("P-good"));
                assertThat(m.deadLetters()).isNotEmpty().allSatisfy(d -> {
                    assertThat(d.sourceTopic).isEqualTo(MatcherHarness.TOPIC);
                    assertThat(d.reason).contains("cep-parcel-sla", "P-bad", "cannot build this one");
                    assertThat(d.exception).isEqualTo(IllegalArgumentException.class.getName());
                    assertThat(new String(d.key, java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("P-bad");
                    assertThat(new String(d.value, java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("evt-bad");
                    assertThat(d.processor).isEqualTo("match-cep-parcel-sla");
                });

                m.watermark(deadline.plus(Duration.ofDays(3)));
                assertThat(m.keyedStateEntries()).as("the failed subject is cleared like any other").isZero();
                assertThat(m.eventTimeTimers()).isZero();
            }
        }

        @Test
        void deliveredInTimeIsNoAlert() throws Exception {
            try (var m = matcher()) {
                m.send(scan("ofd", "P-2", ParcelStatus.OUT_FOR_DELIVERY, promisedBy, T0))
                        .send(scan("del", "P-2", ParcelStatus.DELIVERED, promisedBy, promisedBy.plus(ONE_HOUR)))
                        .watermark(deadline.plus(Duration.ofDays(3)));
                assertThat(m.newAlerts()).isEmpty();
                assertThat(m.keyedStateEntries()).isZero();
                assertThat(m.eventTimeTimers()).isZero();
            }
        }
    }

    /** The parcel SLA pattern, except that building the findings of one subject throws (as the bug did). */
    private record FailingFor(String subject, ParcelSlaPattern real) implements SubjectPattern<ParcelScanned> {
        @Override
        public List<Finding> find(String parcel, List<CepFact> scans, PatternSettings settings, Instant timeReached) {
            if (parcel.equals(subject)) {
                throw new IllegalArgumentException("cannot build this one");
            }
            return real.find(parcel, scans, settings, timeReached);
        }

        @Override
        public PatternSettings.Kind kind() {
            return real.kind();
        }

        @Override
        public io.streamhouse.domain.event.Envelope envelope(ParcelScanned event) {
            return real.envelope(event);
        }

        @Override
        public String subject(ParcelScanned event) {
            return real.subject(event);
        }

        @Override
        public java.util.Optional<CepFact> factOf(ParcelScanned event) {
            return real.factOf(event);
        }

        @Override
        public java.util.Optional<Instant> deadline(CepFact fact, PatternSettings settings) {
            return real.deadline(fact, settings);
        }

        @Override
        public Duration retention(PatternSettings settings) {
            return real.retention(settings);
        }

        @Override
        public Duration guard(PatternSettings settings) {
            return real.guard(settings);
        }

        @Override
        public int version(PatternSettings settings) {
            return real.version(settings);
        }

        @Override
        public boolean enabled(PatternSettings settings) {
            return real.enabled(settings);
        }
    }

    @Nested
    class Vehicles {
        private MatcherHarness<VehicleTelemetry> matcher(SubjectPattern<VehicleTelemetry> pattern) throws Exception {
            return new MatcherHarness<>(pattern, AvroTypes.of(VehicleTelemetry.class), VehicleTelemetry::getVehicleId);
        }

        @Test
        void threeRisingHotReadingsWithinFiveMinutesAreOverheatingAndTheAlertGrowsWithTheRun() throws Exception {
            try (var m = matcher(new OverheatingPattern())) {
                m.send(reading("r0", "truck-7", 96.0, 1000, T0))
                        .send(reading("r1", "truck-7", 106.0, 1001, T0.plus(ONE_MINUTE)))
                        .send(reading("r2", "truck-7", 107.5, 1002, T0.plus(ONE_MINUTE.multipliedBy(2))))
                        .send(reading("r3", "truck-7", 109.0, 1003, T0.plus(ONE_MINUTE.multipliedBy(3))))
                        .watermark(T0.plus(ONE_MINUTE.multipliedBy(3)));
                Alert first = m.newAlerts().get(0);
                assertThat(first.getType()).isEqualTo(AlertType.ENGINE_OVERHEATING);
                assertThat(first.getMatchedEventIds()).containsExactly("evt-r1", "evt-r2", "evt-r3");

                m.send(reading("r4", "truck-7", 111.0, 1004, T0.plus(ONE_MINUTE.multipliedBy(4))))
                        .send(reading("r5", "truck-7", 90.0, 1005, T0.plus(ONE_MINUTE.multipliedBy(5))))
                        .watermark(T0.plus(ONE_MINUTE.multipliedBy(5)));
                assertThat(m.newAlerts()).singleElement().satisfies(a -> {
                    assertThat(a.getMatchedEventIds()).containsExactly("evt-r1", "evt-r2", "evt-r3", "evt-r4");
                    assertThat(a.getAttributes()).containsEntry(Alerts.SUPERSEDES, first.getAlertId());
                });
                m.watermark(T0.plus(ONE_HOUR));
                assertThat(m.keyedStateEntries()).isZero();
                assertThat(m.eventTimeTimers()).isZero();
            }
        }

        @Test
        void hotButNotRisingOrSpreadOverMoreThanFiveMinutesIsNoOverheating() throws Exception {
            try (var m = matcher(new OverheatingPattern())) {
                m.send(reading("a1", "truck-8", 106.0, 1, T0))
                        .send(reading("a2", "truck-8", 106.0, 2, T0.plus(ONE_MINUTE)))
                        .send(reading("a3", "truck-8", 107.0, 3, T0.plus(ONE_MINUTE.multipliedBy(2))))
                        .send(reading("b1", "truck-9", 106.0, 1, T0))
                        .send(reading("b2", "truck-9", 107.0, 2, T0.plus(ONE_MINUTE.multipliedBy(3))))
                        .send(reading("b3", "truck-9", 108.0, 3, T0.plus(ONE_MINUTE.multipliedBy(6))))
                        .watermark(T0.plus(ONE_HOUR));
                assertThat(m.newAlerts()).isEmpty();
            }
        }

        @Test
        void passingAServiceMarkOnTheOdometerIsMaintenanceDue() throws Exception {
            try (var m = matcher(new MaintenanceDuePattern())) {
                m.send(reading("m1", "truck-7", 90, 14_999.5, T0))
                        .send(reading("m2", "truck-7", 90, 15_000.7, T0.plus(ONE_MINUTE)))
                        .send(reading("m3", "truck-7", 90, 15_002.0, T0.plus(ONE_MINUTE.multipliedBy(2))))
                        .watermark(T0.plus(ONE_MINUTE.multipliedBy(2)));
                assertThat(m.newAlerts()).singleElement().satisfies(a -> {
                    assertThat(a.getType()).isEqualTo(AlertType.MAINTENANCE_DUE);
                    assertThat(a.getCategory()).isEqualTo(AlertCategory.MAINTENANCE);
                    assertThat(a.getMatchedEventIds()).containsExactly("evt-m1", "evt-m2");
                    assertThat(a.getAttributes()).containsEntry("serviceMarkKm", "15000");
                });
                m.watermark(T0.plus(Duration.ofDays(1)));
                assertThat(m.keyedStateEntries()).isZero();
                assertThat(m.eventTimeTimers()).isZero();
            }
        }
    }
}
