package io.streamhouse.detection.cep;

import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.event.Address;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.events.GreatCircle;
import io.streamhouse.domain.state.CepFact;
import io.streamhouse.domain.state.StampedFact;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.topic.Topics;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Either;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.streamhouse.detection.cep.CepEvents.addressChanged;
import static io.streamhouse.detection.cep.CepEvents.emailChanged;
import static io.streamhouse.detection.cep.CepEvents.order;
import static io.streamhouse.detection.cep.CepEvents.payment;
import static io.streamhouse.detection.cep.CepEvents.presentPayment;
import static io.streamhouse.detection.cep.CepEvents.reading;
import static io.streamhouse.detection.cep.CepEvents.scan;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Flink CEP library patterns, given stamped facts, when event time passes them, expect these alerts: each pattern's
 * hits beside its near misses, thresholds read from the facts (a fact stamped with another version decides under that
 * version, and the alert carries it), a parcel never delivered reported at its deadline (by the deadline fact of
 * {@link ParcelDeadlines}), and revised when it is delivered after it. Every scenario
 * is its own subject; they run together in one job (one MiniCluster for the class).
 */
class LibraryPatternsTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(1).build());

    private static final PatternSettings V1 = PatternSettings.defaults();
    /** Card testing v2: smalls up to 2.50. */
    private static final PatternSettings SMALL_MAX_250 = withCardTesting(2, "2.50", Duration.ofMinutes(10));
    /** Card testing v3: a 15-minute window (the pattern's within is an hour). */
    private static final PatternSettings WINDOW_15_MIN = withCardTesting(3, "2.00", Duration.ofMinutes(15));

    private static final List<StampedFact> GIVEN = new ArrayList<>();
    private static List<Alert> alerts;

    /**
     * The three runs go to the class's cluster, injected here: the extension installs it as the context environment
     * only around each test, so {@code getExecutionEnvironment} in a {@code @BeforeAll} would start a MiniCluster per
     * run.
     */
    @BeforeAll
    static void whenEventTimePassesEveryFact(@InjectMiniCluster MiniCluster cluster) throws Exception {
        // Card testing: three smalls, then a large within 10 minutes.
        cardTest("card-hit", V1, "1.00", "1.00", "1.00", Duration.ofMinutes(5));
        // A small payment of 2.01 is not small: two smalls only.
        cardTest("card-small-2.01", V1, "1.00", "1.00", "2.01", Duration.ofMinutes(5));
        // ... unless the thresholds in force say smalls go up to 2.50 (version 2, stamped on the facts).
        cardTest("card-small-2.01-v2", SMALL_MAX_250, "1.00", "1.00", "2.01", Duration.ofMinutes(5));
        // The large payment 10 min 1 s after the first small: that small is outside the window.
        cardTest("card-large-after-window", V1, "1.00", "1.00", "1.00", Duration.ofMinutes(10).plusSeconds(1));
        // ... inside a 15-minute window (version 3), below the pattern's within.
        cardTest("card-large-after-window-v3", WINDOW_15_MIN, "1.00", "1.00", "1.00", Duration.ofMinutes(10).plusSeconds(1));
        // A large payment that completes no card test (its first small is outside the window) leaves the smalls for
        // the next one.
        CardTestingPattern ct = new CardTestingPattern();
        String card = "card-large-too-early";
        add(ct, V1, payment(card + "-s1", card, "1.00", T0));
        add(ct, V1, payment(card + "-s2", card, "1.00", T0.plus(Duration.ofMinutes(9))));
        add(ct, V1, payment(card + "-s3", card, "1.00", T0.plus(Duration.ofMinutes(10))));
        add(ct, V1, payment(card + "-large1", card, "600.00", T0.plus(Duration.ofMinutes(10)).plusSeconds(30)));
        add(ct, V1, payment(card + "-s4", card, "1.00", T0.plus(Duration.ofMinutes(11))));
        add(ct, V1, payment(card + "-large2", card, "600.00", T0.plus(Duration.ofMinutes(12))));

        // A small payment delivered twice (the same event id) counts once: two smalls, no card test.
        String repeated = "card-repeated-small";
        add(ct, V1, payment(repeated + "-s1", repeated, "1.00", T0));
        add(ct, V1, payment(repeated + "-s2", repeated, "1.00", T0.plusSeconds(60)));
        add(ct, V1, payment(repeated + "-s2", repeated, "1.00", T0.plusSeconds(60)));
        add(ct, V1, payment(repeated + "-large", repeated, "600.00", T0.plus(Duration.ofMinutes(5))));

        // Impossible travel: 901 km/h against 899 km/h.
        travel("travel-901", 901);
        travel("travel-899", 899);
        // Each use is compared with the card's next one only: two uses at home, then one abroad.
        GeoPoint home = GeoPoint.newBuilder().setLat(0).setLon(0).build();
        GeoPoint abroad = GeoPoint.newBuilder().setLat(0).setLon(10).build();
        ImpossibleTravelPattern travel = new ImpossibleTravelPattern();
        add(travel, V1, presentPayment("travel-three-a", "travel-three", home, Merchants.GROCER_ROTTERDAM, T0));
        add(travel, V1, presentPayment("travel-three-b", "travel-three", home, Merchants.GROCER_ROTTERDAM, T0.plusSeconds(600)));
        add(travel, V1, presentPayment("travel-three-c", "travel-three", abroad, Merchants.GROCER_ROTTERDAM, T0.plusSeconds(1200)));

        // Parcel SLA (grace 2 h): delivered one second after the deadline, one second before, never.
        Instant promisedBy = T0.plus(Duration.ofHours(1));
        Instant deadline = promisedBy.plus(V1.parcelSla().grace());
        parcel("parcel-delivered-late", promisedBy, deadline.plusSeconds(1));
        parcel("parcel-delivered-in-time", promisedBy, deadline.minusSeconds(1));
        parcel("parcel-never-delivered", promisedBy, null);
        // Out for delivery an hour after its deadline (late before it left), never delivered: the scan is the breach.
        add(new ParcelSlaPattern(), V1, scan("parcel-out-after-deadline-out", "parcel-out-after-deadline",
                ParcelStatus.OUT_FOR_DELIVERY, T0.minus(Duration.ofHours(3)), T0));
        // Sent out again before delivery: only the last out-for-delivery scan counts.
        add(new ParcelSlaPattern(), V1, scan("p-again-1", "parcel-sent-again", ParcelStatus.OUT_FOR_DELIVERY,
                T0.plus(Duration.ofHours(30)), T0));
        add(new ParcelSlaPattern(), V1, scan("p-again-2", "parcel-sent-again", ParcelStatus.OUT_FOR_DELIVERY,
                promisedBy, T0.plusSeconds(60)));
        add(new ParcelSlaPattern(), V1, scan("p-again-3", "parcel-sent-again", ParcelStatus.DELIVERED, null,
                deadline.plusSeconds(1)));
        // ... and a delivery in time for the last one is in time, however late for the first.
        add(new ParcelSlaPattern(), V1, scan("p-again-in-time-1", "parcel-sent-again-in-time",
                ParcelStatus.OUT_FOR_DELIVERY, promisedBy, T0));
        add(new ParcelSlaPattern(), V1, scan("p-again-in-time-2", "parcel-sent-again-in-time",
                ParcelStatus.OUT_FOR_DELIVERY, T0.plus(Duration.ofHours(30)), T0.plusSeconds(60)));
        add(new ParcelSlaPattern(), V1, scan("p-again-in-time-3", "parcel-sent-again-in-time", ParcelStatus.DELIVERED,
                null, deadline.plusSeconds(1)));

        // Account takeover (high value 1,000, window 1 h): an e-mail change 2 h before (outside the window), an address
        // change and an e-mail change inside it, then two high-value orders to the new address: each order alerts the
        // changes in its window, once (the widest of the nested matches), and both use the same changes.
        AccountTakeoverPattern ato = new AccountTakeoverPattern();
        Address dam = SampleEvents.address("Dam 1", "Amsterdam");
        Address coolsingel = SampleEvents.address("Coolsingel 40", "Rotterdam");
        add(ato, V1, Either.Left(emailChanged("ato-hit-c1", "ato-hit", T0.minus(Duration.ofHours(2)))));
        add(ato, V1, Either.Left(addressChanged("ato-hit-c2", "ato-hit", dam, T0)));
        add(ato, V1, Either.Left(emailChanged("ato-hit-c3", "ato-hit", T0.plus(Duration.ofMinutes(10)))));
        add(ato, V1, Either.Right(order("ato-hit-o1", "o-ato-1", "ato-hit", "1500.00", dam, T0.plus(Duration.ofMinutes(30)))));
        add(ato, V1, Either.Right(order("ato-hit-o2", "o-ato-2", "ato-hit", "2000.00", dam, T0.plus(Duration.ofMinutes(50)))));
        // A takeover order one minute after its window; one to another address than the new one; one below 1,000.
        add(ato, V1, Either.Left(emailChanged("ato-late-c", "ato-late", T0)));
        add(ato, V1, Either.Right(order("ato-late-o", "o-ato-3", "ato-late", "1500.00", dam,
                T0.plus(Duration.ofHours(1)).plusSeconds(60))));
        add(ato, V1, Either.Left(addressChanged("ato-elsewhere-c", "ato-elsewhere", dam, T0)));
        add(ato, V1, Either.Right(order("ato-elsewhere-o", "o-ato-4", "ato-elsewhere", "1500.00", coolsingel,
                T0.plus(Duration.ofMinutes(5)))));
        add(ato, V1, Either.Left(emailChanged("ato-small-c", "ato-small", T0)));
        add(ato, V1, Either.Right(order("ato-small-o", "o-ato-5", "ato-small", "999.99", dam, T0.plus(Duration.ofMinutes(5)))));

        // Engine overheating (above 105 °C, 3 rising readings within 5 min): a run of four, alerted at its third
        // reading and revised at its fourth; readings that are equal, not rising; three spread over 5 min 1 s; a run
        // that a cooler reading breaks.
        hot("hot-run", 104, 106, 107, 108, 109);
        hot("hot-equal", 106, 106, 107);
        OverheatingPattern oh = new OverheatingPattern();
        add(oh, V1, reading("hot-spread-1", "hot-spread", 106, 1_000, T0));
        add(oh, V1, reading("hot-spread-2", "hot-spread", 107, 1_000, T0.plusSeconds(60)));
        add(oh, V1, reading("hot-spread-3", "hot-spread", 108, 1_000, T0.plus(Duration.ofMinutes(5)).plusSeconds(1)));
        hot("hot-broken", 106, 108, 107, 109);

        // Maintenance due: passing 15,000 km, and not quite.
        add(new MaintenanceDuePattern(), V1, reading("m-hit-1", "van-hit", 90, 14_999.9, T0));
        add(new MaintenanceDuePattern(), V1, reading("m-hit-2", "van-hit", 90, 15_000.1, T0.plusSeconds(30)));
        add(new MaintenanceDuePattern(), V1, reading("m-miss-1", "van-miss", 90, 14_000, T0));
        add(new MaintenanceDuePattern(), V1, reading("m-miss-2", "van-miss", 90, 14_999.9, T0.plusSeconds(30)));

        List<StampedFact> inOrder = GIVEN.stream()
                .sorted(Comparator.comparingLong((StampedFact f) -> f.getFact().getOccurredAtMs())).toList();
        List<StampedFact> shuffled = new ArrayList<>(inOrder);
        Collections.shuffle(shuffled, new Random(21));
        // Three runs on one cluster: in event time; every fact behind the watermark in event-time order; every fact
        // behind the watermark, shuffled (the late runs per pattern, so the shuffle stays within each one's retention).
        RUNS.get(0).addAll(run(cluster, inOrder, false));
        RUNS.get(1).addAll(run(cluster, inOrder, true));
        RUNS.get(2).addAll(run(cluster, shuffled, true));
        alerts = RUNS.get(0);
    }

    private static List<Alert> run(MiniCluster cluster, List<StampedFact> given, boolean everyFactLate) throws Exception {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, conf, 1, List.of(), List.of());
        env.setParallelism(1);
        DataStream<StampedFact> facts = env.fromData(given, new AvroTypeInfo<>(StampedFact.class));
        if (!everyFactLate) {
            facts = facts.assignTimestampsAndWatermarks(WatermarkStrategy.<StampedFact>forMonotonousTimestamps()
                    .withTimestampAssigner((f, ignored) -> f.getFact().getOccurredAtMs()));
        }
        List<DataStream<DeadLetter>> deadLetters = new ArrayList<>();
        DataStream<Alert> all = null;
        for (SubjectPattern<?> pattern : List.of(new CardTestingPattern(), new ImpossibleTravelPattern(),
                new AccountTakeoverPattern(), new ParcelSlaPattern(), new OverheatingPattern(),
                new MaintenanceDuePattern())) {
            String kind = pattern.kind().ruleId();
            DataStream<StampedFact> ofPattern = facts.filter(f -> kindOf(f).equals(kind))
                    .returns(new AvroTypeInfo<>(StampedFact.class));
            DataStream<Alert> out = CepJob.onLibrary(everyFactLate ? BehindTheWatermark.of(ofPattern) : ofPattern,
                    pattern, Topics.TRANSACTION_REQUESTS, null, deadLetters);
            all = all == null ? out : all.union(out);
        }
        List<Alert> alerts = new ArrayList<>();
        try (CloseableIterator<Alert> it = all.executeAndCollect("library-patterns")) {
            it.forEachRemaining(alerts::add);
        }
        return alerts;
    }

    /** The alerts of the three runs: in event time, every fact late in order, every fact late shuffled. */
    private static final List<List<Alert>> RUNS = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());

    @Test
    void everyCaseEndsWithTheSameAlertsWhenEveryFactArrivesBehindTheWatermarkInOrderOrShuffled() {
        Map<String, Alert> expected = AlertsInEffect.of(RUNS.get(0));
        assertThat(expected).as("the cases alert").hasSizeGreaterThan(10);
        for (int run = 1; run < RUNS.size(); run++) {
            assertThat(AlertsInEffect.of(RUNS.get(run)))
                    .as(run == 1 ? "every fact late, in order" : "every fact late, shuffled")
                    .isEqualTo(expected);
        }
    }

    @Test
    void cardTestingAlertsThreeSmallsThenALargeWithinTheWindowAndNotTheNearMisses() {
        assertThat(alertsOf("card-hit")).singleElement().satisfies(a -> {
            assertThat(a.getMatchedEventIds()).hasSize(4);
            assertThat(a.getPatternVersion()).isEqualTo(1);
        });
        assertThat(alertsOf("card-small-2.01")).as("2.01 is not a small payment").isEmpty();
        assertThat(alertsOf("card-large-after-window")).as("large 10 min 1 s after the first small").isEmpty();
        assertThat(alertsOf("card-repeated-small")).as("a small payment delivered twice counts once").isEmpty();
        assertThat(alertsOf("card-large-too-early")).singleElement().satisfies(a -> assertThat(a.getMatchedEventIds())
                .containsExactly("evt-card-large-too-early-s2", "evt-card-large-too-early-s3",
                        "evt-card-large-too-early-s4", "evt-card-large-too-early-large2"));
    }

    @Test
    void cardTestingReadsTheThresholdsStampedOnTheFactsAndReportsTheirVersion() {
        assertThat(alertsOf("card-small-2.01-v2")).singleElement().satisfies(a -> {
            assertThat(a.getMatchedEventIds()).hasSize(4);
            assertThat(a.getPatternVersion()).isEqualTo(2);
            assertThat(a.getAttributes()).containsEntry("smallMax", "2.50");
        });
        assertThat(alertsOf("card-large-after-window-v3")).singleElement().satisfies(a -> {
            assertThat(a.getPatternVersion()).isEqualTo(3);
            assertThat(a.getAttributes()).containsEntry("window", "PT15M");
        });
    }

    @Test
    void impossibleTravelAlertsAbove900KmhOnly() {
        assertThat(alertsOf("travel-901")).singleElement()
                .satisfies(a -> assertThat(a.getMatchedEventIds()).containsExactly("evt-travel-901-a", "evt-travel-901-b"));
        assertThat(alertsOf("travel-899")).isEmpty();
        assertThat(alertsOf("travel-three")).singleElement()
                .satisfies(a -> assertThat(a.getMatchedEventIds()).containsExactly("evt-travel-three-b", "evt-travel-three-c"));
    }

    @Test
    void aParcelNotDeliveredByItsDeadlineIsAlertedThenAndRevisedWhenItIsDeliveredLate() {
        // Delivered one second after the deadline: "never delivered" came first (at the deadline, before the
        // delivery in event time), and the delivery supersedes it. Reported only at a time-out (2 days after the scan),
        // the breach would have been the delivery's alone.
        List<Alert> late = alertsOf("parcel-delivered-late");
        assertThat(late).extracting(a -> a.getAttributes().get("outcome"))
                .containsExactlyInAnyOrder("never-delivered", "delivered-late");
        Alert neverDelivered = late.stream().filter(a -> a.getAttributes().get("outcome").equals("never-delivered"))
                .findFirst().orElseThrow();
        assertThat(neverDelivered.getMatchedEventIds()).containsExactly("evt-parcel-delivered-late-out");
        assertThat(neverDelivered.getAttributes()).doesNotContainKey(Alerts.SUPERSEDES);
        assertThat(late).filteredOn(a -> a.getAttributes().get("outcome").equals("delivered-late")).singleElement()
                .satisfies(a -> {
                    assertThat(a.getMatchedEventIds()).hasSize(2);
                    assertThat(a.getAttributes()).containsEntry(Alerts.SUPERSEDES, neverDelivered.getAlertId());
                });
        assertThat(alertsOf("parcel-delivered-in-time")).isEmpty();
        assertThat(alertsOf("parcel-never-delivered")).singleElement().satisfies(a -> {
            assertThat(a.getAttributes()).containsEntry("outcome", "never-delivered");
            assertThat(a.getMatchedEventIds()).containsExactly("evt-parcel-never-delivered-out");
            assertThat(a.getWindowEnd()).as("the deadline")
                    .isEqualTo(T0.plus(Duration.ofHours(1)).plus(V1.parcelSla().grace()));
        });
        assertThat(alertsOf("parcel-out-after-deadline")).singleElement().satisfies(a -> {
            assertThat(a.getAttributes()).containsEntry("outcome", "never-delivered");
            assertThat(a.getMatchedEventIds()).containsExactly("evt-parcel-out-after-deadline-out");
        });
        // Sent out again: the first scan's deadline does not count; the second's is reported and then revised.
        assertThat(alertsOf("parcel-sent-again")).hasSize(2).allSatisfy(a -> assertThat(a.getMatchedEventIds())
                .doesNotContain("evt-p-again-1"));
        assertThat(alertsOf("parcel-sent-again")).filteredOn(a -> a.getAttributes().containsKey(Alerts.SUPERSEDES))
                .singleElement().satisfies(a -> {
                    assertThat(a.getAttributes()).containsEntry("outcome", "delivered-late");
                    assertThat(a.getMatchedEventIds()).containsExactly("evt-p-again-2", "evt-p-again-3");
                });
        assertThat(alertsOf("parcel-sent-again-in-time")).isEmpty();
    }

    @Test
    void accountTakeoverAlertsEachHighValueOrderOnceWithTheChangesInItsWindowAndNotTheNearMisses() {
        assertThat(alertsOf("ato-hit")).extracting(Alert::getMatchedEventIds).containsExactlyInAnyOrder(
                List.of("evt-ato-hit-c2", "evt-ato-hit-c3", "evt-ato-hit-o1"),
                List.of("evt-ato-hit-c2", "evt-ato-hit-c3", "evt-ato-hit-o2"));
        assertThat(alertsOf("ato-hit")).allSatisfy(a -> assertThat(a.getAttributes()).containsEntry("changes", "address+email"));
        assertThat(alertsOf("ato-late")).as("the order a minute after the window").isEmpty();
        assertThat(alertsOf("ato-elsewhere")).as("shipped elsewhere than the new address").isEmpty();
        assertThat(alertsOf("ato-small")).as("999.99 is not high value").isEmpty();
    }

    @Test
    void anOverheatingRunIsAlertedWhenLongEnoughAndRevisedWhileItGrowsAndTheNearMissesAreNot() {
        List<Alert> run = alertsOf("hot-run");
        assertThat(run).extracting(Alert::getMatchedEventIds).containsExactlyInAnyOrder(
                List.of("evt-hot-run-2", "evt-hot-run-3", "evt-hot-run-4"),
                List.of("evt-hot-run-2", "evt-hot-run-3", "evt-hot-run-4", "evt-hot-run-5"));
        Alert first = run.stream().filter(a -> a.getMatchedEventIds().size() == 3).findFirst().orElseThrow();
        assertThat(first.getAttributes()).doesNotContainKey(Alerts.SUPERSEDES);
        assertThat(run).filteredOn(a -> a.getMatchedEventIds().size() == 4).singleElement()
                .satisfies(a -> assertThat(a.getAttributes()).containsEntry(Alerts.SUPERSEDES, first.getAlertId()));
        assertThat(alertsOf("hot-equal")).as("equal readings are not rising").isEmpty();
        assertThat(alertsOf("hot-spread")).as("three readings over 5 min 1 s").isEmpty();
        assertThat(alertsOf("hot-broken")).as("106, 108, 107, 109: no three rising in a row").isEmpty();
    }

    @Test
    void maintenanceIsDueWhenTheOdometerPassesAServiceMark() {
        assertThat(alertsOf("van-hit")).singleElement()
                .satisfies(a -> assertThat(a.getAttributes()).containsEntry("serviceMarkKm", "15000"));
        assertThat(alertsOf("van-miss")).isEmpty();
    }

    private static List<Alert> alertsOf(String subject) {
        return alerts.stream().filter(a -> a.getSubject().getId().equals(subject)).toList();
    }

    private static void cardTest(String card, PatternSettings s, String a, String b, String c, Duration largeAfter) {
        CardTestingPattern p = new CardTestingPattern();
        add(p, s, payment(card + "-s1", card, a, T0));
        add(p, s, payment(card + "-s2", card, b, T0.plusSeconds(60)));
        add(p, s, payment(card + "-s3", card, c, T0.plusSeconds(120)));
        add(p, s, payment(card + "-large", card, "600.00", T0.plus(largeAfter)));
    }

    /** One vehicle's coolant readings, 30 s apart. */
    private static void hot(String vehicle, double... coolant) {
        for (int i = 0; i < coolant.length; i++) {
            add(new OverheatingPattern(), V1, reading(vehicle + "-" + (i + 1), vehicle, coolant[i], 1_000,
                    T0.plusSeconds(30L * i)));
        }
    }

    private static void travel(String card, double kmh) {
        GeoPoint from = GeoPoint.newBuilder().setLat(0).setLon(0).build();
        GeoPoint to = GeoPoint.newBuilder().setLat(0).setLon(10).build();
        long ms = Math.round(GreatCircle.distanceKm(from, to) / kmh * 3_600_000);
        ImpossibleTravelPattern p = new ImpossibleTravelPattern();
        add(p, V1, presentPayment(card + "-a", card, from, Merchants.GROCER_ROTTERDAM, T0));
        add(p, V1, presentPayment(card + "-b", card, to, Merchants.GROCER_ROTTERDAM, T0.plusMillis(ms)));
    }

    private static void parcel(String parcel, Instant promisedBy, Instant deliveredAt) {
        ParcelSlaPattern p = new ParcelSlaPattern();
        add(p, V1, scan(parcel + "-out", parcel, ParcelStatus.OUT_FOR_DELIVERY, promisedBy, T0));
        if (deliveredAt != null) {
            add(p, V1, scan(parcel + "-delivered", parcel, ParcelStatus.DELIVERED, null, deliveredAt));
        }
    }

    /** The event's fact, as FactsOf and the stamping step would pass it on under {@code s}. */
    private static <E> void add(SubjectPattern<E> pattern, PatternSettings s, E event) {
        CepFact fact = pattern.factOf(event).orElseThrow();
        if (pattern.keeps(fact, s)) {
            GIVEN.add(new StampedFact(pattern.subject(event), fact, Thresholds.of(s, pattern.kind())));
        }
    }

    private static String kindOf(StampedFact f) {
        if (f.getSubject().startsWith("hot-")) {
            return PatternSettings.Kind.ENGINE_OVERHEATING.ruleId();
        }
        // Each scenario's subject names its pattern's facts apart: payments of card tests, uses, scans, readings.
        return switch (f.getFact().getKind()) {
            case "payment" -> PatternSettings.Kind.CARD_TESTING.ruleId();
            case "use" -> PatternSettings.Kind.IMPOSSIBLE_TRAVEL.ruleId();
            case "out-for-delivery", "delivered" -> PatternSettings.Kind.PARCEL_SLA.ruleId();
            case "address", "email", "order" -> PatternSettings.Kind.ACCOUNT_TAKEOVER.ruleId();
            default -> PatternSettings.Kind.MAINTENANCE_DUE.ruleId();
        };
    }

    private static PatternSettings withCardTesting(int version, String smallMax, Duration window) {
        PatternSettings d = PatternSettings.defaults();
        return new PatternSettings(new PatternSettings.CardTesting(version, true, new BigDecimal(smallMax),
                new BigDecimal("500.00"), 3, window), d.impossibleTravel(), d.accountTakeover(), d.parcelSla(),
                d.overheating(), d.maintenanceDue());
    }
}
