package io.streamhouse.api.serving;

import io.streamhouse.api.EventLog;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.AlertSubject;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.Severity;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.decision.CardFeatures;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.state.ParcelTracking;
import io.streamhouse.domain.testdata.Hubs;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.domain.wire.RegistryTopicSerdes;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.junit.WithStreamhousePlatform;
import io.streamhouse.projections.serving.ServingStores;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two api instances with one application id on the real broker: a key held by the other instance is forwarded to
 * it; the alert and decision feeds are gathered from both; with the other instance killed, its keys are answered from this instance's standby, marked stale, until the
 * partitions move here, after which answers are fresh and new events apply again.
 */
@Execution(ExecutionMode.CONCURRENT)
@WithStreamhousePlatform
class ServingInstancesIT {
    private static final Instant T1 = Times.T0, T2 = T1.plus(Times.ONE_HOUR);
    private static final int PARCELS = 12;
    /** Enough transaction ids to reach every partition of the decisions topic, and so both instances. */
    private static final int DECISIONS = 24;

    private final EmbeddedPlatform platform;
    private final List<ServingInstance> instances = new ArrayList<>();

    ServingInstancesIT(EmbeddedPlatform platform) {
        this.platform = platform;
    }

    @AfterEach
    void stop() {
        instances.forEach(ServingInstance::close);
    }

    private ServingInstance start(String applicationId) {
        var serdes = new RegistryTopicSerdes(new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString()));
        Path stateDir = platform.options().dataDir().resolve("serving-it-state");
        var instance = new ServingInstance(applicationId, platform.bootstrapServers(), serdes, stateDir,
                Clock.fixed(T2, ZoneOffset.UTC));
        instances.add(instance);
        return instance;
    }

    private static ParcelScanned scan(String parcel, String eventId, ParcelStatus status, Instant at) {
        return ParcelScanned.newBuilder().setEnvelope(SampleEvents.envelope(eventId, parcel, at, ParcelScanned.class))
                .setParcelId(parcel).setHubId(Hubs.ROTTERDAM).setStatus(status).setVehicleId(status == ParcelStatus.LOADED ? "truck-it" : null)
                .setLocation(Hubs.ROTTERDAM_POS).setPromisedBy(T2.plus(Times.ONE_HOUR.multipliedBy(5))).build();
    }

    private static String parcel(int i) {
        return "P-it-" + i;
    }

    @Test
    void keysHeldElsewhereAreForwardedAndAKilledOwnersKeysComeFromTheStandby() throws Exception {
        String app = "serving-it-" + System.nanoTime();
        ServingInstance a = start(app);
        ServingInstance b = start(app);
        await().atMost(Duration.ofSeconds(90)).until(() -> a.streams.state() == KafkaStreams.State.RUNNING
                && b.streams.state() == KafkaStreams.State.RUNNING
                && a.streams.streamsMetadataForStore(ServingStores.PARCEL_TRACKING).size() == 2
                && !a.streams.streamsMetadataForStore(ServingStores.PARCEL_TRACKING).stream()
                .allMatch(m -> m.topicPartitions().isEmpty()));

        EventLog.send(Topics.VEHICLE_TELEMETRY, "truck-it", VehicleTelemetry.newBuilder()
                .setEnvelope(SampleEvents.envelope("tel-it-1", "truck-it", T2, VehicleTelemetry.class))
                .setVehicleId("truck-it").setPosition(Hubs.ANTWERP_POS).setSpeedKmh(60).setCoolantTempC(85)
                .setOdometerKm(5000).setFaultCodes(List.of()).build());
        for (int i = 0; i < PARCELS; i++) {
            EventLog.send(Topics.PARCEL_SCANS, parcel(i), scan(parcel(i), "it-" + i + "-1", ParcelStatus.RECEIVED_AT_HUB, T1));
            EventLog.send(Topics.PARCEL_SCANS, parcel(i), scan(parcel(i), "it-" + i + "-2", ParcelStatus.LOADED, T2));
        }
        for (int i = 0; i < 6; i++) {
            String subject = "truck-feed-" + i;
            EventLog.send(Topics.MAINTENANCE_ALERTS, subject, Alert.newBuilder()
                    .setEnvelope(SampleEvents.envelope("evt-feed-" + i, subject, T1.plusSeconds(i), Alert.class))
                    .setAlertId("feed-" + i).setType(AlertType.MAINTENANCE_DUE).setCategory(AlertCategory.MAINTENANCE)
                    .setSeverity(Severity.LOW).setSubject(AlertSubject.newBuilder().setKind(SubjectKind.VEHICLE).setId(subject).build())
                    .setPatternId("maintenance-due").setPatternVersion(1).setSummary("due").setMatchedEventIds(List.of())
                    .setAttributes(Map.of()).setWindowStart(T1).setWindowEnd(T1).build());
        }

        // Decisions on every partition of the decisions topic, decided one millisecond apart.
        Instant decidedFrom = Instant.now();
        List<String> decisionIds = new ArrayList<>();
        for (int i = 0; i < DECISIONS; i++) {
            String id = "it-decision-" + app + "-" + i;
            var tx = SampleEvents.transaction(id, "tok_it_" + i, "12.50", "EUR", Merchants.GROCER_ROTTERDAM, T1);
            EventLog.send(Topics.TRANSACTION_DECISIONS, id, Decisions.toEvent(tx, DefaultRules.ruleSet().decide(tx,
                    Features.of(CardFeatures.firstPayment(id, tx.getAmount().getAmount()))), decidedFrom.plusMillis(i)));
            decisionIds.add(0, id);
        }

        // Every parcel from either instance, fresh, with its vehicle; some answered by the other instance.
        Set<String> servedBy = new HashSet<>();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            servedBy.clear();
            for (int i = 0; i < PARCELS; i++) {
                for (ServingInstance via : List.of(a, b)) {
                    var answer = via.queries.parcel(parcel(i), null);
                    assertThat(answer).isInstanceOf(Answer.Ok.class);
                    Views.ParcelView view = ((Answer.Ok<Views.ParcelView>) answer).view();
                    assertThat(view.status()).isEqualTo("LOADED");
                    assertThat(view.vehicle().position()).isNotNull();
                    assertThat(view.meta().freshness().stale()).isFalse();
                    assertThat(view.meta().freshness().lastEventAt()).isEqualTo(T2);
                    assertThat(view.history()).as("its scans, joined where the parcel is held").extracting(Views.ScanView::eventId)
                            .containsExactly("it-" + i + "-1", "it-" + i + "-2");
                    servedBy.add(view.meta().freshness().servedBy());
                }
            }
        });
        // A parcel looked up again after a new scan shows it: what the owner kept of the last join gave way.
        String extra = "P-it-extra";
        EventLog.send(Topics.PARCEL_SCANS, extra, scan(extra, "it-extra-1", ParcelStatus.RECEIVED_AT_HUB, T1));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (ServingInstance via : List.of(a, b)) {
                var answer = via.queries.parcel(extra, null);
                assertThat(answer).isInstanceOf(Answer.Ok.class);
                assertThat(((Answer.Ok<Views.ParcelView>) answer).view().history()).extracting(Views.ScanView::eventId)
                        .containsExactly("it-extra-1");
            }
        });
        EventLog.send(Topics.PARCEL_SCANS, extra, scan(extra, "it-extra-2", ParcelStatus.IN_TRANSIT, T2));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (ServingInstance via : List.of(a, b)) {
                Views.ParcelView view = ((Answer.Ok<Views.ParcelView>) via.queries.parcel(extra, null)).view();
                assertThat(view.status()).isEqualTo("IN_TRANSIT");
                assertThat(view.history()).extracting(Views.ScanView::eventId).containsExactly("it-extra-1", "it-extra-2");
            }
        });
        assertThat(servedBy).as("both instances own some parcels").containsExactlyInAnyOrder(a.self.host() + ":" + a.self.port(), b.self.host() + ":" + b.self.port());
        // Each partition's store is open for direct reads on exactly the instance whose task is active for it.
        assertThat(a.openStores.openPartitions(ServingStores.PARCEL_TRACKING) + b.openStores.openPartitions(ServingStores.PARCEL_TRACKING))
                .isEqualTo(Topics.PARCEL_SCANS.partitions());
        for (int p = 0; p < Topics.PARCEL_SCANS.partitions(); p++) {
            assertThat(a.openStores.active(ServingStores.PARCEL_TRACKING, p) == null)
                    .as("partition %d open on exactly one instance", p)
                    .isNotEqualTo(b.openStores.active(ServingStores.PARCEL_TRACKING, p) == null);
        }

        List<String> heldByB = new ArrayList<>();
        for (int i = 0; i < PARCELS; i++) {
            KeyQueryMetadata meta = a.streams.queryMetadataForKey(ServingStores.PARCEL_TRACKING, parcel(i), Serdes.String().serializer());
            if (meta.activeHost().equals(b.self)) {
                heldByB.add(parcel(i));
            }
        }
        assertThat(heldByB).isNotEmpty();
        String remote = heldByB.get(0);
        var past = a.queries.parcel(remote, T1.plusSeconds(1));
        assertThat(((Answer.Ok<Views.ParcelView>) past).view().status()).as("asOf, forwarded").isEqualTo("RECEIVED_AT_HUB");
        assertThat(((Answer.Ok<Views.ParcelView>) past).view().meta().validTo()).isEqualTo(T2);
        assertThat(((Answer.Ok<Views.ParcelView>) past).view().history()).as("the scans up to then")
                .extracting(Views.ScanView::eventId).containsExactly(remote.replace("P-it-", "it-") + "-1");
        assertThat(a.queries.parcel("P-it-unknown", null)).isInstanceOf(Answer.NotFound.class);

        var page = ((Answer.Ok<Views.AlertPage>) a.queries.alerts(null, 500)).view();
        assertThat(page.partial()).isFalse();
        assertThat(page.alerts().stream().map(Views.FeedAlertView::alertId).filter(id -> id.startsWith("feed-")).toList())
                .as("gathered from both instances, newest first")
                .containsExactly("feed-5", "feed-4", "feed-3", "feed-2", "feed-1", "feed-0");

        // The recent decisions, gathered from both instances' partitions of the decision feed, newest first.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (ServingInstance via : List.of(a, b)) {
                var decisions = ((Answer.Ok<ProjectionQueries.FeedPage<TransactionDecision>>) via.queries.decisions(null, 500)).view();
                assertThat(decisions.missingPartitions()).isEmpty();
                assertThat(decisions.entries().stream().map(TransactionDecision::getTransactionId)
                        .filter(id -> id.startsWith("it-decision-" + app + "-")).toList())
                        .as("from both instances, newest first").containsExactlyElementsOf(decisionIds);
            }
        });
        assertThat(a.streams.streamsMetadataForStore(ServingStores.DECISION_FEED)).as("both instances hold decision feed partitions")
                .filteredOn(m -> m.topicPartitions().stream().anyMatch(tp -> tp.topic().equals(Topics.TRANSACTION_DECISIONS.name())))
                .hasSize(2);
        var firstPage = ((Answer.Ok<ProjectionQueries.FeedPage<TransactionDecision>>) a.queries.decisions(null, 2)).view();
        assertThat(firstPage.entries()).hasSize(2);
        var nextPage = ((Answer.Ok<ProjectionQueries.FeedPage<TransactionDecision>>) a.queries.decisions(firstPage.nextCursor(), 2)).view();
        assertThat(nextPage.entries()).as("the page after the cursor, older").hasSize(2)
                .allSatisfy(d -> assertThat(d.getEnvelope().getRecordedAt()).isBeforeOrEqualTo(
                        firstPage.entries().get(1).getEnvelope().getRecordedAt()));
        assertThat(nextPage.entries()).doesNotContainAnyElementsOf(firstPage.entries());

        // A's standby replicas of B's partitions have caught up.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (String key : heldByB) {
                var local = a.router.<ParcelTracking>local(ServingStores.PARCEL_TRACKING, key,
                        a.router.partitionOf(ServingStores.PARCEL_TRACKING, key), null, false);
                assertThat(local).isInstanceOf(Lookup.Found.class);
                assertThat(((Lookup.Found<ParcelTracking>) local).value().getStatus()).isEqualTo("LOADED");
            }
        });

        b.close();
        assertThat(b.openStores.openPartitions(ServingStores.PARCEL_TRACKING)).as("a closed instance holds no store open").isZero();
        // Until the group notices (session timeout), metadata still names B: the standby answers, marked stale.
        var stale = a.queries.parcel(remote, null);
        assertThat(stale).isInstanceOf(Answer.Ok.class);
        Views.ParcelView staleView = ((Answer.Ok<Views.ParcelView>) stale).view();
        assertThat(staleView.status()).isEqualTo("LOADED");
        assertThat(staleView.meta().freshness().stale()).isTrue();
        assertThat(staleView.meta().freshness().servedBy()).isEqualTo(a.self.host() + ":" + a.self.port());
        assertThat(staleView.history()).as("the standby's scans").extracting(Views.ScanView::eventId)
                .containsExactly(remote.replace("P-it-", "it-") + "-1", remote.replace("P-it-", "it-") + "-2");

        // Once the partitions moved to A, answers are fresh again and new events are applied.
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
            var answer = a.queries.parcel(remote, null);
            assertThat(answer).isInstanceOf(Answer.Ok.class);
            assertThat(((Answer.Ok<Views.ParcelView>) answer).view().meta().freshness().stale()).isFalse();
            assertThat(a.openStores.openPartitions(ServingStores.PARCEL_TRACKING)).isEqualTo(Topics.PARCEL_SCANS.partitions());
        });
        EventLog.send(Topics.PARCEL_SCANS, remote, scan(remote, "it-after-kill", ParcelStatus.OUT_FOR_DELIVERY, T2.plusSeconds(60)));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            var answer = a.queries.parcel(remote, null);
            assertThat(((Answer.Ok<Views.ParcelView>) answer).view().status()).isEqualTo("OUT_FOR_DELIVERY");
            assertThat(((Answer.Ok<Views.ParcelView>) answer).view().history()).extracting(Views.ScanView::eventId)
                    .endsWith("it-after-kill").hasSize(3);
        });
    }
}
