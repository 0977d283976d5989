package io.streamhouse.drills;

import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import org.apache.kafka.common.serialization.Deserializer;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** Every telemetry reading and parcel scan ingest accepted is on its topic, once ({@link DrillChecks#delivery}). */
final class AsyncDeliveryCheck implements Check<DrillChecks.Delivery> {
    private final List<GeneratedEvent> sent;
    private final Map<String, Integer> statuses;

    AsyncDeliveryCheck(List<GeneratedEvent> sent, Map<String, Integer> statuses) {
        this.sent = sent;
        this.statuses = statuses;
    }

    @Override
    public CheckResult<DrillChecks.Delivery> run(CheckContext on) {
        Set<String> ids = new HashSet<>();
        sent.forEach(e -> ids.add(e.eventId()));
        List<String> onLog = new ArrayList<>();
        Deserializer<VehicleTelemetry> telemetry = on.serdes().valueSerde(Topics.VEHICLE_TELEMETRY).deserializer();
        on.reader().readAll(Topics.VEHICLE_TELEMETRY.name(),
                r -> eventId(() -> telemetry.deserialize(r.topic(), r.value()).getEnvelope().getEventId(), ids, onLog));
        Deserializer<ParcelScanned> scans = on.serdes().valueSerde(Topics.PARCEL_SCANS).deserializer();
        on.reader().readAll(Topics.PARCEL_SCANS.name(),
                r -> eventId(() -> scans.deserialize(r.topic(), r.value()).getEnvelope().getEventId(), ids, onLog));
        DrillChecks.Delivery async = DrillChecks.delivery(statuses, onLog);
        return CheckResult.failedIf(!async.passed(), async, "asynchronous events: " + async.refused() + " refused, " + async.lost()
                + " accepted but not on their topic, " + async.duplicated() + " on their topic twice");
    }

    private static void eventId(Supplier<String> id, Set<String> wanted, List<String> out) {
        try {
            String eventId = id.get();
            if (wanted.contains(eventId)) {
                out.add(eventId);
            }
        } catch (RuntimeException unreadable) {
            // not an event this check sent; ingest's own consumers dead-letter what they cannot read
        }
    }
}
