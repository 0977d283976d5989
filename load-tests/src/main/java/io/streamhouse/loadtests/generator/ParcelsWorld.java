package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.SubjectKind;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static io.streamhouse.loadtests.generator.Simulation.HOUR;
import static io.streamhouse.loadtests.generator.Simulation.MINUTE;

/**
 * Parcels from label to doorstep, each journey written at once as scans between two neighbouring hubs, carried by a
 * truck of the fleet; plants SLA breaches. Normal parcels are delivered well before their promise (24 h after the
 * label; the journey takes at most 11 h).
 */
final class ParcelsWorld {
    private final Simulation sim;
    private final SplittableRandom rnd;
    private final PatternRules rules;
    private final FleetWorld fleet;
    private int parcelSeq;

    ParcelsWorld(Simulation sim, FleetWorld fleet) {
        this.sim = sim;
        this.rnd = sim.random();
        this.rules = sim.rules();
        this.fleet = fleet;
    }

    /** A parcel's scans up to OUT_FOR_DELIVERY: what the last scan needs to know. */
    private record Journey(String parcelId, int from, int to, String vehicleId, long outForDeliveryAt,
                           String outForDeliveryEventId, long promisedBy) {
    }

    private Journey journey(long promisedOffsetFromLabel, boolean promiseFromOfd, long promiseAfterOfd) {
        String parcelId = "P" + sim.tag() + "-" + (parcelSeq++);
        int from = rnd.nextInt(RoadNetwork.HUBS.size());
        List<Integer> neighbours = RoadNetwork.neighbours(from);
        int to = neighbours.get(rnd.nextInt(neighbours.size()));
        String vehicleId = fleet.anyVehicleId();
        long label = sim.now();
        long received = label + 20 * MINUTE + rnd.nextLong(70 * MINUTE);
        long sorted = received + 5 * MINUTE + rnd.nextLong(25 * MINUTE);
        long loaded = sorted + 5 * MINUTE + rnd.nextLong(25 * MINUTE);
        long inTransit = loaded + 2 * MINUTE + rnd.nextLong(8 * MINUTE);
        long drive = Math.round(RoadNetwork.roadKm(from, to) / 70.0 * HOUR);
        long ofd = inTransit + drive + 10 * MINUTE + rnd.nextLong(30 * MINUTE);
        long promisedBy = promiseFromOfd ? ofd + promiseAfterOfd : label + promisedOffsetFromLabel;
        GeoPoint fromPos = RoadNetwork.HUBS.get(from).position();
        GeoPoint toPos = RoadNetwork.HUBS.get(to).position();
        scan(parcelId, null, ParcelStatus.LABEL_CREATED, null, sim.jitter(fromPos), promisedBy, label);
        scan(parcelId, RoadNetwork.HUBS.get(from).id(), ParcelStatus.RECEIVED_AT_HUB, null, fromPos, promisedBy, received);
        scan(parcelId, RoadNetwork.HUBS.get(from).id(), ParcelStatus.SORTED, null, fromPos, promisedBy, sorted);
        scan(parcelId, RoadNetwork.HUBS.get(from).id(), ParcelStatus.LOADED, vehicleId, fromPos, promisedBy, loaded);
        scan(parcelId, null, ParcelStatus.IN_TRANSIT, vehicleId, Geo.point((fromPos.getLat() + toPos.getLat()) / 2,
                (fromPos.getLon() + toPos.getLon()) / 2), promisedBy, inTransit);
        String ofdId = scan(parcelId, RoadNetwork.HUBS.get(to).id(), ParcelStatus.OUT_FOR_DELIVERY, vehicleId, toPos,
                promisedBy, ofd);
        return new Journey(parcelId, from, to, vehicleId, ofd, ofdId, promisedBy);
    }

    void normalParcel() {
        Journey j = journey(24 * HOUR, false, 0);
        long delivered = j.outForDeliveryAt() + 15 * MINUTE + rnd.nextLong(165 * MINUTE);
        scan(j.parcelId(), null, ParcelStatus.DELIVERED, j.vehicleId(),
                sim.jitter(RoadNetwork.HUBS.get(j.to()).position()), j.promisedBy(), delivered);
    }

    void plantParcelStuck() {
        long promiseAfterOfd = HOUR + rnd.nextLong(2 * HOUR);
        Journey j = journey(0, true, promiseAfterOfd);
        long promisedBy = j.promisedBy();
        long deadline = promisedBy + rules.parcelGrace().toMillis();
        List<String> ids = new ArrayList<>(List.of(j.outForDeliveryEventId()));
        GeoPoint dest = RoadNetwork.HUBS.get(j.to()).position();
        String how;
        if (rnd.nextBoolean()) {
            ids.add(scan(j.parcelId(), null, ParcelStatus.DELIVERED, j.vehicleId(), sim.jitter(dest), promisedBy,
                    deadline + 10 * MINUTE + rnd.nextLong(110 * MINUTE)));
            how = "delivered-late";
        } else {
            long failed = deadline + 10 * MINUTE + rnd.nextLong(50 * MINUTE);
            scan(j.parcelId(), null, ParcelStatus.DELIVERY_FAILED, j.vehicleId(), sim.jitter(dest), promisedBy, failed);
            scan(j.parcelId(), RoadNetwork.HUBS.get(j.to()).id(), ParcelStatus.RETURNED, null, dest, promisedBy,
                    failed + HOUR + rnd.nextLong(2 * HOUR));
            how = "never-delivered";
        }
        sim.record(AlertType.PARCEL_SLA_BREACH, SubjectKind.PARCEL, j.parcelId(), ids, j.outForDeliveryAt(), deadline,
                Map.of("outcome", how, "promisedBy", Instant.ofEpochMilli(promisedBy).toString()));
    }

    private String scan(String parcelId, String hubId, ParcelStatus status, String vehicleId, GeoPoint where,
                        Long promisedBy, long at) {
        var event = ParcelScanned.newBuilder()
                .setEnvelope(sim.envelope(sim.nextEventId(), parcelId, at, ParcelScanned.class))
                .setParcelId(parcelId).setHubId(hubId).setStatus(status).setVehicleId(vehicleId).setLocation(where)
                .setPromisedBy(promisedBy == null ? null : Instant.ofEpochMilli(promisedBy))
                .build();
        return sim.add(EventKind.PARCEL_SCAN, parcelId, event, at);
    }
}
