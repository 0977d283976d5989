package io.streamhouse.projections.serving;

import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.CardFeatures;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.AlertSubject;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.OrderCancelled;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderLine;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.Severity;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.events.Monies;
import io.streamhouse.domain.state.CustomerState;
import io.streamhouse.domain.state.ParcelTracking;
import io.streamhouse.domain.state.SubjectAlerts;
import io.streamhouse.domain.state.VehicleHealth;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Hubs;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.DeadLetterHeaders;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** Given events on the domain topics, expect the serving stores (latest and as of earlier instants) and dead letters. */
class ServingTopologyTest {
    private final TopicSerdes serdes = new RegistryTopicSerdes(new InMemorySchemaRegistryClient());
    private final OpenStores openStores = new OpenStores();
    private TopologyTestDriver driver;

    @BeforeEach
    void start() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "serving-topology-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        driver = new TopologyTestDriver(ServingTopology.build(ServingTopology.Config.defaults(), serdes, openStores), props);
    }

    @AfterEach
    void stop() {
        if (driver != null) {
            driver.close();
        }
    }

    private <V> TestInputTopic<String, V> input(Topic<String, V> topic) {
        return driver.createInputTopic(topic.name(), new StringSerializer(), serdes.valueSerde(topic).serializer());
    }

    private static ParcelScanned scan(String eventId, ParcelStatus status, String hub, String vehicle, Instant at) {
        return ParcelScanned.newBuilder().setEnvelope(SampleEvents.envelope(eventId, "P-1042", at, ParcelScanned.class))
                .setParcelId("P-1042").setHubId(hub).setStatus(status).setVehicleId(vehicle).setLocation(Hubs.ROTTERDAM_POS)
                .setPromisedBy(Times.T0.plus(Times.ONE_HOUR.multipliedBy(8))).build();
    }

    private <V> VersionedKeyValueStore<String, V> versioned(String name) {
        return driver.getVersionedKeyValueStore(name);
    }

    @Test
    void runningTasksRegisterTheirOpenStoresForDirectLookupsAndClosingThemUnregisters() {
        input(Topics.PARCEL_SCANS).pipeInput("P-1042", scan("s1", ParcelStatus.RECEIVED_AT_HUB, Hubs.ROTTERDAM, null, Times.T0));
        for (String store : List.of(ServingStores.PARCEL_TRACKING, ServingStores.VEHICLE_HEALTH, ServingStores.SUBJECT_ALERTS,
                ServingStores.CUSTOMER_STATE, ServingStores.PARCEL_SCANS)) {
            assertThat(openStores.openPartitions(store)).as(store).isEqualTo(1);
        }
        try (var scans = openStores.<io.streamhouse.domain.state.ParcelScanEntry>activeKeyValue(ServingStores.PARCEL_SCANS, 0)
                .range(ParcelScans.from("P-1042"), ParcelScans.to("P-1042"))) {
            assertThat(scans.next().value.getEventId()).as("the scans store the task writes").isEqualTo("s1");
        }
        LatestValues<ParcelTracking> direct = openStores.active(ServingStores.PARCEL_TRACKING, 0);
        assertThat(direct.get("P-1042").value().getStatus()).as("the same store the task writes")
                .isEqualTo("RECEIVED_AT_HUB");
        assertThat(openStores.<ParcelTracking>active(ServingStores.PARCEL_TRACKING, 1)).as("no task of partition 1 here").isNull();

        driver.close();
        driver = null;
        assertThat(openStores.openPartitions(ServingStores.PARCEL_TRACKING)).as("closed tasks leave the registry").isZero();
        assertThat(openStores.openPartitions(ServingStores.PARCEL_SCANS)).as("with their scans store").isZero();
    }

    @Test
    void parcelFollowsItsScansAndKeepsItsHistoryAsOfEachScan() {
        var scans = input(Topics.PARCEL_SCANS);
        Instant t1 = Times.T0, t2 = t1.plus(Times.ONE_HOUR), t3 = t2.plus(Times.ONE_HOUR);
        scans.pipeInput("P-1042", scan("s1", ParcelStatus.RECEIVED_AT_HUB, Hubs.ROTTERDAM, null, t1));
        scans.pipeInput("P-1042", scan("s2", ParcelStatus.LOADED, Hubs.ROTTERDAM, "truck-7", t2));
        scans.pipeInput("P-1042", scan("s3", ParcelStatus.OUT_FOR_DELIVERY, null, null, t3));

        VersionedKeyValueStore<String, ParcelTracking> store = versioned(ServingStores.PARCEL_TRACKING);
        ParcelTracking now = store.get("P-1042").value();
        assertThat(now.getStatus()).isEqualTo("OUT_FOR_DELIVERY");
        assertThat(now.getVehicleId()).as("still on the truck it was loaded on").isEqualTo("truck-7");
        assertThat(now.getHubId()).isEqualTo(Hubs.ROTTERDAM);
        assertThat(now.getLastScanAt()).isEqualTo(t3);
        assertThat(now.getHistory()).as("the stored state does not carry the scans").isEmpty();
        assertThat(history("P-1042", null)).extracting(h -> h.getEventId()).containsExactly("s1", "s2", "s3");
        assertThat(history("P-1042", t2)).as("as of t2").extracting(h -> h.getEventId()).containsExactly("s1", "s2");
        assertThat(store.get("P-1042").timestamp()).isEqualTo(t3.toEpochMilli());

        ParcelTracking atT2 = store.get("P-1042", t2.plusSeconds(1).toEpochMilli()).value();
        assertThat(atT2.getStatus()).isEqualTo("LOADED");
        assertThat(store.get("P-1042", t1.minusMillis(1).toEpochMilli())).as("before the first scan").isNull();
    }

    /** The parcel's scans as the query layer joins them to its state. */
    private List<io.streamhouse.domain.state.ParcelScanEntry> history(String parcelId, Instant asOf) {
        KeyValueStore<String, io.streamhouse.domain.state.ParcelScanEntry> scans = driver.getKeyValueStore(ServingStores.PARCEL_SCANS);
        ParcelTracking state = this.<ParcelTracking>versioned(ServingStores.PARCEL_TRACKING).get(parcelId).value();
        try (var range = scans.range(ParcelScans.from(parcelId), ParcelScans.to(parcelId))) {
            return ParcelScans.withHistory(state, parcelId, range, asOf).getHistory();
        }
    }

    /** How many scan entries the store holds, all parcels. */
    private int storedScans() {
        KeyValueStore<String, io.streamhouse.domain.state.ParcelScanEntry> store = driver.getKeyValueStore(ServingStores.PARCEL_SCANS);
        try (var all = store.all()) {
            int n = 0;
            while (all.hasNext()) {
                all.next();
                n++;
            }
            return n;
        }
    }

    @Test
    void aParcelKeepsItsNewestScansApartAndItsStoredStateDoesNotGrow() {
        var scans = input(Topics.PARCEL_SCANS);
        int count = ParcelScans.KEPT + ParcelScans.TRIM_EVERY; // one of the last ten trims, and the range is refilled
        for (int i = count - 1; i >= 0; i--) { // newest first: every scan after the first is late
            scans.pipeInput("P-1042", scan("s" + i, ParcelStatus.IN_TRANSIT, Hubs.ROTTERDAM, null, Times.T0.plusSeconds(60L * i)));
        }
        scans.pipeInput("P-1042", scan("s24", ParcelStatus.IN_TRANSIT, Hubs.ROTTERDAM, null, Times.T0.plusSeconds(60L * 24)));
        scans.pipeInput("P-1042", scan("s10", ParcelStatus.IN_TRANSIT, Hubs.ROTTERDAM, null, Times.T0.plusSeconds(600)));

        ParcelTracking now = this.<ParcelTracking>versioned(ServingStores.PARCEL_TRACKING).get("P-1042").value();
        assertThat(now.getScans()).as("each scan counted once: the repeats of s24 and s10 are recognised").isEqualTo(count);
        assertThat(now.getHistory()).isEmpty();
        assertThat(history("P-1042", null)).extracting(h -> h.getEventId())
                .containsExactlyElementsOf(IntStream.range(count - ParcelScans.KEPT, count).mapToObj(i -> "s" + i).toList());
        int sinceTrim = ParcelScans.phaseOf("P-1042"); // the last trim was TRIM_EVERY - phase scans past KEPT
        assertThat(storedScans()).as("trimmed to the newest kept, plus the scans since").isEqualTo(ParcelScans.KEPT + sinceTrim);
    }

    @Test
    void theRangeIsTrimmedEveryTenthScanAndQueriesListTheNewestKeptBetweenTrims() {
        var scans = input(Topics.PARCEL_SCANS);
        int last = ParcelScans.KEPT + 2 * ParcelScans.TRIM_EVERY + 3;
        for (int n = 1; n <= last; n++) {
            int i = n - 1;
            scans.pipeInput("P-1042", scan("s" + i, ParcelStatus.IN_TRANSIT, Hubs.ROTTERDAM, null, Times.T0.plusSeconds(60L * i)));
            int past = n - ParcelScans.KEPT;
            int stored = past <= 0 ? n : ParcelScans.KEPT + Math.min(past, (past + ParcelScans.phaseOf("P-1042")) % ParcelScans.TRIM_EVERY);
            assertThat(storedScans()).as("entries stored after scan %d", n).isEqualTo(stored);
            int first = Math.max(0, n - ParcelScans.KEPT);
            assertThat(history("P-1042", null)).as("listed after scan %d", n).extracting(h -> h.getEventId())
                    .containsExactlyElementsOf(IntStream.range(first, n).mapToObj(k -> "s" + k).toList());
            // as of two scans back: of the newest KEPT, those up to then; never an older entry awaiting the next trim
            Instant asOf = Times.T0.plusSeconds(60L * (i - 2));
            assertThat(history("P-1042", asOf)).as("as of two scans back, after scan %d", n).extracting(h -> h.getEventId())
                    .containsExactlyElementsOf(IntStream.range(first, Math.max(first, n - 2)).mapToObj(k -> "s" + k).toList());
        }
        assertThat(this.<ParcelTracking>versioned(ServingStores.PARCEL_TRACKING).get("P-1042").value().getScans()).isEqualTo(last);
    }

    @Test
    void parcelsScannedInStepTrimInDifferentRounds() {
        int parcels = 1_000;
        int[] trimsByRound = new int[ParcelScans.TRIM_EVERY];
        for (int p = 0; p < parcels; p++) {
            String id = "P-load-" + p;
            int trims = 0;
            for (int round = 1; round <= ParcelScans.TRIM_EVERY; round++) { // each parcel's next ten scans past KEPT
                if (ParcelScans.trimsAt(id, ParcelScans.KEPT + round)) {
                    trimsByRound[round - 1]++;
                    trims++;
                }
            }
            assertThat(trims).as("%s trims once in ten scans", id).isEqualTo(1);
        }
        assertThat(IntStream.of(trimsByRound).boxed().toList()).as("parcels trimming in each of ten rounds in which every parcel is scanned once")
                .allSatisfy(n -> assertThat(n).isBetween(parcels / ParcelScans.TRIM_EVERY / 2, parcels / ParcelScans.TRIM_EVERY * 2));
    }

    @Test
    void aStateWrittenWithItsHistoryInsideHasItMovedOutAtItsNextScan() {
        var old = new ArrayList<io.streamhouse.domain.state.ParcelScanEntry>();
        for (int i = 0; i < 3; i++) {
            old.add(io.streamhouse.domain.state.ParcelScanEntry.newBuilder().setEventId("old" + i)
                    .setOccurredAt(Times.T0.plusSeconds(i)).setStatus("SORTED").setHubId(Hubs.ROTTERDAM).setVehicleId(null).build());
        }
        ParcelTracking before = ParcelTracking.newBuilder().setParcelId("P-1042").setStatus("SORTED").setHubId(Hubs.ROTTERDAM)
                .setVehicleId(null).setLocation(null).setPromisedBy(null).setDeliveredAt(null).setLastScanAt(Times.T0.plusSeconds(2))
                .setLastEventId("old2").setScans(3).setHistory(old).build();
        this.<ParcelTracking>versioned(ServingStores.PARCEL_TRACKING).put("P-1042", before, Times.T0.plusSeconds(2).toEpochMilli());

        var scans = input(Topics.PARCEL_SCANS);
        scans.pipeInput("P-1042", scan("old1", ParcelStatus.SORTED, Hubs.ROTTERDAM, null, Times.T0.plusSeconds(1)));
        assertThat(this.<ParcelTracking>versioned(ServingStores.PARCEL_TRACKING).get("P-1042").value().getScans())
                .as("a repeat of a scan in the old history").isEqualTo(3);
        scans.pipeInput("P-1042", scan("s3", ParcelStatus.LOADED, Hubs.ROTTERDAM, "truck-7", Times.T0.plusSeconds(3)));

        ParcelTracking now = this.<ParcelTracking>versioned(ServingStores.PARCEL_TRACKING).get("P-1042").value();
        assertThat(now.getHistory()).as("moved out").isEmpty();
        assertThat(now.getScans()).isEqualTo(4);
        assertThat(history("P-1042", null)).extracting(h -> h.getEventId()).containsExactly("old0", "old1", "old2", "s3");
    }

    @Test
    void anIdSharingAnotherParcelsPrefixDoesNotBorrowItsScans() {
        var scans = input(Topics.PARCEL_SCANS);
        scans.pipeInput("P-1042", scan("s1", ParcelStatus.SORTED, Hubs.ROTTERDAM, null, Times.T0));
        ParcelScanned other = ParcelScanned.newBuilder(scan("x1", ParcelStatus.SORTED, Hubs.ROTTERDAM, null, Times.T0))
                .setEnvelope(SampleEvents.envelope("x1", "P-1042|9", Times.T0, ParcelScanned.class)).setParcelId("P-1042|9").build();
        scans.pipeInput("P-1042|9", other);
        assertThat(history("P-1042", null)).extracting(h -> h.getEventId()).containsExactly("s1");
        assertThat(history("P-1042|9", null)).extracting(h -> h.getEventId()).containsExactly("x1");
    }

    @Test
    void asOfFindsEachVersionAcrossManyShortSegments() {
        assertThat(ServingTopology.Config.defaults().historySegment()).as("the case this test is about")
                .isLessThan(java.time.Duration.ofMinutes(10));
        var scans = input(Topics.PARCEL_SCANS);
        ParcelStatus[] statuses = {ParcelStatus.RECEIVED_AT_HUB, ParcelStatus.LOADED, ParcelStatus.IN_TRANSIT};
        int count = 200; // one scan every 20 s for over an hour: three versions per one-minute segment, 67 segments
        for (int i = 0; i < count; i++) {
            scans.pipeInput("P-1042", scan("s" + i, statuses[i % 3], Hubs.ROTTERDAM, null, Times.T0.plusSeconds(20L * i)));
        }
        VersionedKeyValueStore<String, ParcelTracking> store = versioned(ServingStores.PARCEL_TRACKING);
        for (int i = 0; i < count; i++) {
            Instant at = Times.T0.plusSeconds(20L * i);
            var version = store.get("P-1042", at.plusMillis(19_999).toEpochMilli());
            assertThat(version.value().getLastEventId()).as("as of the end of scan %d's interval", i).isEqualTo("s" + i);
            assertThat(version.timestamp()).isEqualTo(at.toEpochMilli());
            assertThat(store.get("P-1042", at.toEpochMilli()).value().getScans()).as("as of scan %d itself", i).isEqualTo(i + 1);
        }
        assertThat(store.get("P-1042", Times.T0.minusMillis(1).toEpochMilli())).isNull();
    }

    @Test
    void aSegmentIntervalMustBePositive() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> new ServingTopology.Config(java.time.Duration.ofDays(1), java.time.Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("historySegment");
    }

    @Test
    void lateScanJoinsTheHistoryButDoesNotMoveTheParcelBack() {
        var scans = input(Topics.PARCEL_SCANS);
        Instant t1 = Times.T0;
        scans.pipeInput("P-1042", scan("s2", ParcelStatus.DELIVERED, null, null, t1.plus(Times.ONE_HOUR)));
        scans.pipeInput("P-1042", scan("s1", ParcelStatus.OUT_FOR_DELIVERY, null, "truck-7", t1));
        scans.pipeInput("P-1042", scan("s1", ParcelStatus.OUT_FOR_DELIVERY, null, "truck-7", t1));

        ParcelTracking now = this.<ParcelTracking>versioned(ServingStores.PARCEL_TRACKING).get("P-1042").value();
        assertThat(now.getStatus()).isEqualTo("DELIVERED");
        assertThat(now.getVehicleId()).isNull();
        assertThat(now.getDeliveredAt()).isEqualTo(t1.plus(Times.ONE_HOUR));
        assertThat(history("P-1042", null)).extracting(h -> h.getEventId()).as("ordered by event time, duplicate once")
                .containsExactly("s1", "s2");
        assertThat(now.getScans()).isEqualTo(2);
    }

    @Test
    void unreadableOrMisKeyedScanIsDeadLetteredAndTheNextIsApplied() {
        var raw = driver.createInputTopic(Topics.PARCEL_SCANS.name(), new StringSerializer(), Serdes.ByteArray().serializer());
        var dlq = driver.createOutputTopic(Topics.deadLetterOf(Topics.PARCEL_SCANS).name(), new StringDeserializer(),
                Serdes.ByteArray().deserializer());
        raw.pipeInput("P-1042", "garbage".getBytes(StandardCharsets.UTF_8));
        input(Topics.PARCEL_SCANS).pipeInput("P-9999", scan("s1", ParcelStatus.SORTED, Hubs.ANTWERP, null, Times.T0));
        input(Topics.PARCEL_SCANS).pipeInput("P-1042", scan("s2", ParcelStatus.SORTED, Hubs.ANTWERP, null, Times.T0));

        var dead = dlq.readRecordsToList();
        assertThat(dead).hasSize(2);
        assertThat(new String(dead.get(1).headers().lastHeader(DeadLetterHeaders.REASON).value(), StandardCharsets.UTF_8))
                .contains("not the event's aggregate id");
        assertThat(this.<ParcelTracking>versioned(ServingStores.PARCEL_TRACKING).get("P-1042").value().getHubId()).isEqualTo(Hubs.ANTWERP);
        assertThat(this.<ParcelTracking>versioned(ServingStores.PARCEL_TRACKING).get("P-9999")).isNull();
    }

    @Test
    void vehicleHealthIsTheNewestReadingWithTheHottestSeen() {
        var telemetry = input(Topics.VEHICLE_TELEMETRY);
        telemetry.pipeInput("truck-7", reading("r1", 95.0, Times.T0));
        telemetry.pipeInput("truck-7", reading("r2", 88.0, Times.T0.plus(Times.ONE_MINUTE)));
        telemetry.pipeInput("truck-7", reading("r0", 70.0, Times.T0.minus(Times.ONE_MINUTE)));

        VehicleHealth now = this.<VehicleHealth>versioned(ServingStores.VEHICLE_HEALTH).get("truck-7").value();
        assertThat(now.getCoolantTempC()).isEqualTo(88.0);
        assertThat(now.getMaxCoolantTempC()).isEqualTo(95.0);
        assertThat(now.getReadings()).isEqualTo(3);
        assertThat(now.getLastEventId()).isEqualTo("r2");
    }

    private static VehicleTelemetry reading(String id, double coolant, Instant at) {
        return VehicleTelemetry.newBuilder().setEnvelope(SampleEvents.envelope(id, "truck-7", at, VehicleTelemetry.class))
                .setVehicleId("truck-7").setPosition(Hubs.ANTWERP_POS).setSpeedKmh(50).setCoolantTempC(coolant)
                .setOdometerKm(1000).setFaultCodes(List.of()).build();
    }

    @Test
    void alertsFromEveryAlertTopicLandPerSubjectAndInTheFeed() {
        input(Topics.FRAUD_ALERTS).pipeInput(Cards.STOLEN, alert("a1", SubjectKind.CARD, Cards.STOLEN, AlertType.CARD_TESTING, Times.T0));
        input(Topics.PARCEL_ALERTS).pipeInput("P-1042", alert("a2", SubjectKind.PARCEL, "P-1042", AlertType.PARCEL_SLA_BREACH,
                Times.T0.plus(Times.ONE_MINUTE)));
        input(Topics.MAINTENANCE_ALERTS).pipeInput("truck-7", alert("a3", SubjectKind.VEHICLE, "truck-7", AlertType.ENGINE_OVERHEATING,
                Times.T0.plus(Times.ONE_HOUR)));
        input(Topics.FRAUD_ALERTS).pipeInput(Cards.STOLEN, alert("a1", SubjectKind.CARD, Cards.STOLEN, AlertType.CARD_TESTING, Times.T0));

        VersionedKeyValueStore<String, SubjectAlerts> bySubject = versioned(ServingStores.SUBJECT_ALERTS);
        assertThat(bySubject.get(Cards.STOLEN).value().getAlerts()).extracting(a -> a.getAlertId()).containsExactly("a1");
        assertThat(bySubject.get("truck-7").value().getAlerts().get(0).getType()).isEqualTo("ENGINE_OVERHEATING");
        KeyValueStore<String, Alert> feed = driver.getKeyValueStore(ServingStores.ALERT_FEED);
        List<String> ids = new ArrayList<>();
        try (var all = feed.all()) {
            all.forEachRemaining(kv -> ids.add(kv.value.getAlertId()));
        }
        assertThat(ids).as("in event-time order, each alert once").containsExactly("a1", "a2", "a3");
    }

    @Test
    void everyDecisionLandsInTheDecisionFeedByWhenItWasDecidedAndOnlyTheNewestAreKept() {
        var decisions = input(Topics.TRANSACTION_DECISIONS);
        // one decision more than the feed lets by before it trims; the duplicate below does not count, so a feed that
        // counted it would trim one decision early and end with one entry too many
        int total = ServingStores.DECISION_FEED_KEPT + ServingStores.DECISION_FEED_KEPT / 10 + 1;
        for (int i = 0; i < total; i++) {
            // requested in the opposite order to decided: the feed is ordered by when each was decided
            var tx = SampleEvents.transaction("feed-tx-" + i, Cards.ALICE, "12.50", "EUR", Merchants.GROCER_ROTTERDAM,
                    Times.T0.minusSeconds(i));
            TransactionDecision decision = Decisions.toEvent(tx, DefaultRules.ruleSet().decide(tx,
                    Features.of(CardFeatures.firstPayment(tx.getTransactionId(), tx.getAmount().getAmount()))), Times.T0.plusMillis(i));
            decisions.pipeInput(tx.getTransactionId(), decision);
            if (i == 1) {
                decisions.pipeInput(tx.getTransactionId(), decision); // a duplicate overwrites itself
                KeyValueStore<String, TransactionDecision> feed = driver.getKeyValueStore(ServingStores.DECISION_FEED);
                assertThat(keys(feed)).containsExactly(AlertFeedKeys.of(Times.T0, "feed-tx-0"),
                        AlertFeedKeys.of(Times.T0.plusMillis(1), "feed-tx-1"));
            }
        }

        KeyValueStore<String, TransactionDecision> feed = driver.getKeyValueStore(ServingStores.DECISION_FEED);
        List<String> kept = keys(feed);
        assertThat(kept).as("trimmed to the newest once a tenth over").hasSize(ServingStores.DECISION_FEED_KEPT);
        assertThat(kept.get(kept.size() - 1)).isEqualTo(AlertFeedKeys.of(Times.T0.plusMillis(total - 1), "feed-tx-" + (total - 1)));
        assertThat(kept.get(0)).isEqualTo(AlertFeedKeys.of(Times.T0.plusMillis(total - ServingStores.DECISION_FEED_KEPT),
                "feed-tx-" + (total - ServingStores.DECISION_FEED_KEPT)));
        assertThat(feed.get(kept.get(0)).getOutcome()).isNotNull();
    }

    private static List<String> keys(KeyValueStore<String, ?> store) {
        List<String> keys = new ArrayList<>();
        try (var all = store.all()) {
            all.forEachRemaining(kv -> keys.add(kv.key));
        }
        return keys;
    }

    static Alert alert(String id, SubjectKind kind, String subject, AlertType type, Instant at) {
        return Alert.newBuilder().setEnvelope(SampleEvents.envelope("evt-" + id, subject, at, Alert.class))
                .setAlertId(id).setType(type).setCategory(type == AlertType.PARCEL_SLA_BREACH ? AlertCategory.PARCEL
                        : type == AlertType.ENGINE_OVERHEATING ? AlertCategory.MAINTENANCE : AlertCategory.FRAUD)
                .setSeverity(Severity.HIGH).setSubject(AlertSubject.newBuilder().setKind(kind).setId(subject).build())
                .setPatternId(type.name().toLowerCase()).setPatternVersion(1).setSummary(type + " on " + subject)
                .setMatchedEventIds(List.of()).setAttributes(Map.of()).setWindowStart(at).setWindowEnd(at).build();
    }

    @Test
    void customerStateGathersProfileOrdersAndDecisionsKeyedOtherwise() {
        Instant t = Times.T0;
        input(Topics.CUSTOMERS).pipeInput("c-1", CustomerEvent.newBuilder()
                .setEnvelope(SampleEvents.envelope("c1", "c-1", t, CustomerEvent.class)).setCustomerId("c-1")
                .setChange(CustomerRegistered.newBuilder().setEmail("alice@example.org").setFullName("Alice")
                        .setAddress(null).setRegisteredAt(t).build()).build());
        var orders = input(Topics.ORDERS);
        orders.pipeInput("o-1", placed("o-1", "39.98", t.plus(Times.ONE_MINUTE)));
        orders.pipeInput("o-2", placed("o-2", "10.00", t.plus(Times.ONE_MINUTE.multipliedBy(2))));
        orders.pipeInput("o-2", OrderEvent.newBuilder().setEnvelope(SampleEvents.envelope("o-2-x", "o-2",
                        t.plus(Times.ONE_MINUTE.multipliedBy(3)), OrderEvent.class)).setOrderId("o-2").setCustomerId("c-1")
                .setChange(OrderCancelled.newBuilder().setReason("changed mind").build()).build());
        var tx = SampleEvents.transaction("tx-1", Cards.ALICE, "12.50", "EUR", Merchants.GROCER_ROTTERDAM, t.plus(Times.ONE_HOUR));
        TransactionDecision decision = Decisions.toEvent(tx, DefaultRules.ruleSet().decide(tx,
                Features.of(CardFeatures.firstPayment(tx.getTransactionId(), tx.getAmount().getAmount()))), t.plus(Times.ONE_HOUR));
        input(Topics.TRANSACTION_DECISIONS).pipeInput("tx-1", decision);
        TransactionDecision anonymous = TransactionDecision.newBuilder(decision).setTransactionId("tx-2").setCustomerId(null).build();
        input(Topics.TRANSACTION_DECISIONS).pipeInput("tx-2", anonymous);

        VersionedKeyValueStore<String, CustomerState> store = versioned(ServingStores.CUSTOMER_STATE);
        CustomerState now = store.get("c-1").value();
        assertThat(now.getEmail()).isEqualTo("alice@example.org");
        assertThat(now.getOrderCount()).isEqualTo(2);
        assertThat(now.getSpend()).containsEntry("EUR", "39.9800");
        assertThat(now.getOrders()).extracting(o -> o.getOrderId() + ":" + o.getStatus()).containsExactly("o-1:PLACED", "o-2:CANCELLED");
        assertThat(now.getDecisions()).extracting(d -> d.getTransactionId()).containsExactly("tx-1");
        assertThat(now.getCardTokens()).containsExactly(Cards.ALICE);
        assertThat(store.get("c-1", t.plus(Times.ONE_MINUTE.multipliedBy(2)).toEpochMilli()).value().getSpend())
                .as("as of before the cancellation").containsEntry("EUR", "49.9800");
    }

    /** The compacted profiles topic (a product): each customer's profile after each change, from the serving app. */
    @Test
    void eachCustomerChangePublishesTheCustomersProfile() {
        Instant t = Times.T0;
        var customers = input(Topics.CUSTOMERS);
        customers.pipeInput("c-1", CustomerEvent.newBuilder()
                .setEnvelope(SampleEvents.envelope("c1", "c-1", t, CustomerEvent.class)).setCustomerId("c-1")
                .setChange(CustomerRegistered.newBuilder().setEmail("alice@example.org").setFullName("Alice")
                        .setAddress(null).setRegisteredAt(t).build()).build());
        customers.pipeInput("c-1", CustomerEvent.newBuilder()
                .setEnvelope(SampleEvents.envelope("c2", "c-1", t.plus(Times.ONE_HOUR), CustomerEvent.class)).setCustomerId("c-1")
                .setChange(io.streamhouse.domain.event.CustomerAddressChanged.newBuilder().setPrevious(null)
                        .setCurrent(SampleEvents.address("Coolsingel 40", "Rotterdam")).build()).build());
        var profiles = driver.createOutputTopic(Topics.CUSTOMER_PROFILES.name(), new StringDeserializer(),
                serdes.valueSerde(Topics.CUSTOMER_PROFILES).deserializer());

        var published = profiles.readKeyValuesToList();

        assertThat(published).extracting(kv -> kv.key).containsExactly("c-1", "c-1");
        var latest = published.get(1).value;
        assertThat(latest.getRegisteredAt()).isEqualTo(t);
        assertThat(latest.getAddressChangedAt()).isEqualTo(t.plus(Times.ONE_HOUR));
        assertThat(latest.getAddressChanges()).containsExactly(t.plus(Times.ONE_HOUR));
    }

    private static OrderEvent placed(String id, String total, Instant at) {
        return OrderEvent.newBuilder().setEnvelope(SampleEvents.envelope("evt-" + id, id, at, OrderEvent.class))
                .setOrderId(id).setCustomerId("c-1")
                .setChange(OrderPlaced.newBuilder()
                        .setLines(List.of(OrderLine.newBuilder().setSku("sku-1").setQuantity(1).setUnitPrice(Monies.of(total, "EUR")).build()))
                        .setTotal(Monies.of(total, "EUR")).setShippingAddress(SampleEvents.address("Coolsingel 40", "Rotterdam"))
                        .setPaymentMethodId(null).build())
                .build();
    }

    @Test
    void aDecisionBeforeAnythingElseStartsTheCustomersState() {
        var tx = SampleEvents.transaction("tx-9", Cards.BOB, "5.00", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0);
        TransactionDecision decision = Decisions.toEvent(tx, DefaultRules.ruleSet().decide(tx,
                Features.of(CardFeatures.firstPayment(tx.getTransactionId(), tx.getAmount().getAmount()))), Times.T0);
        input(Topics.TRANSACTION_DECISIONS).pipeInput("tx-9", decision);
        CustomerState now = this.<CustomerState>versioned(ServingStores.CUSTOMER_STATE).get("c-1").value();
        assertThat(now.getDecisions()).extracting(d -> d.getTransactionId()).containsExactly("tx-9");
        assertThat(now.getOrderCount()).isZero();

        input(Topics.ORDERS).pipeInput("o-9", placed("o-9", "5.00", Times.T0.plusSeconds(1)));
        assertThat(this.<CustomerState>versioned(ServingStores.CUSTOMER_STATE).get("c-1").value().getOrderCount()).isEqualTo(1);
    }
}
