package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.VehicleTelemetry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static io.streamhouse.loadtests.generator.Simulation.HOUR;
import static io.streamhouse.loadtests.generator.Simulation.MINUTE;
import static io.streamhouse.loadtests.generator.Simulation.SECOND;

/**
 * The trucks and their telemetry; plants engine overheating. Normal coolant stays below 98 °C, and a vehicle in a
 * planted episode gets no normal readings meanwhile, so normal readings cannot blur an episode.
 */
final class FleetWorld {
    private final Simulation sim;
    private final SplittableRandom rnd;
    private final PatternRules rules;
    private final PaymentsWorld payments;
    private final Vehicle[] vehicles;
    private int nextVehicle;

    /** Puts each truck at a hub, departing within the first half hour. */
    FleetWorld(Simulation sim, PaymentsWorld payments) {
        this.sim = sim;
        this.rnd = sim.random();
        this.rules = sim.rules();
        this.payments = payments;
        long now = sim.now();
        vehicles = new Vehicle[sim.config().vehicles()];
        for (int v = 0; v < vehicles.length; v++) {
            vehicles[v] = new Vehicle(String.format("truck-%s-%03d", sim.tag(), v), rnd.nextInt(RoadNetwork.HUBS.size()),
                    now + rnd.nextLong(30 * MINUTE), 20_000 + rnd.nextInt(180_000), 70 + rnd.nextInt(21));
        }
    }

    /** A truck drawn at random, for a parcel to ride on. */
    String anyVehicleId() {
        return vehicles[rnd.nextInt(vehicles.length)].id;
    }

    /** A truck driving hub to neighbouring hub with a dwell at each; its state only moves forward in time. */
    private final class Vehicle {
        final String id;
        int from;
        int to;
        long departAt;
        long arriveAt;
        double legKm;
        double odometerAtDeparture;
        final int cruiseKmh;
        long busyUntil = Long.MIN_VALUE;

        Vehicle(String id, int hub, long departAt, double odometer, int cruiseKmh) {
            this.id = id;
            this.from = hub;
            this.cruiseKmh = cruiseKmh;
            this.odometerAtDeparture = odometer;
            startLeg(hub, departAt);
        }

        private void startLeg(int hub, long depart) {
            from = hub;
            List<Integer> n = RoadNetwork.neighbours(hub);
            to = n.get(rnd.nextInt(n.size()));
            departAt = depart;
            legKm = RoadNetwork.roadKm(from, to);
            arriveAt = departAt + Math.round(legKm / cruiseKmh * HOUR);
        }

        VehicleTelemetry reading(long at, double coolant, List<String> faults) {
            while (at >= arriveAt) {
                odometerAtDeparture += legKm;
                startLeg(to, arriveAt + 5 * MINUTE + rnd.nextLong(20 * MINUTE));
            }
            GeoPoint a = RoadNetwork.HUBS.get(from).position();
            GeoPoint b = RoadNetwork.HUBS.get(to).position();
            double f = at < departAt ? 0 : (double) (at - departAt) / (arriveAt - departAt);
            double speed = at < departAt ? 0 : cruiseKmh - 5 + rnd.nextDouble() * 10;
            return VehicleTelemetry.newBuilder()
                    .setEnvelope(sim.envelope(sim.nextEventId(), id, at, VehicleTelemetry.class))
                    .setVehicleId(id)
                    .setPosition(Geo.point(a.getLat() + (b.getLat() - a.getLat()) * f, a.getLon() + (b.getLon() - a.getLon()) * f))
                    .setSpeedKmh(Math.round(speed * 10) / 10.0)
                    .setCoolantTempC(Math.round(coolant * 10) / 10.0)
                    .setOdometerKm(Math.round((odometerAtDeparture + legKm * f) * 10) / 10.0)
                    .setFaultCodes(faults)
                    .build();
        }
    }

    void normalReading() {
        long now = sim.now();
        for (int tries = 0; tries < vehicles.length; tries++) {
            Vehicle v = vehicles[nextVehicle];
            nextVehicle = (nextVehicle + 1) % vehicles.length;
            if (v.busyUntil < now) {
                // 84-97 °C: warm with speed, never near the overheating threshold.
                double coolant = 84 + rnd.nextDouble() * 4 + (now >= v.departAt && now < v.arriveAt ? 6 : 0)
                        + rnd.nextDouble() * 3;
                sim.add(EventKind.VEHICLE_TELEMETRY, v.id, v.reading(now, coolant, List.of()), now);
                return;
            }
        }
        payments.normalPayment(false);
    }

    void plantOverheating() {
        long now = sim.now();
        Vehicle v = null;
        int start = rnd.nextInt(vehicles.length);
        for (int i = 0; i < vehicles.length && v == null; i++) {
            Vehicle candidate = vehicles[(start + i) % vehicles.length];
            if (candidate.busyUntil < now) {
                v = candidate;
            }
        }
        if (v == null) {
            normalReading();
            return;
        }
        int readings = rules.overheatingMinReadings() + rnd.nextInt(3);
        long at = now + 5 * SECOND + rnd.nextLong(25 * SECOND);
        long first = at;
        double coolant = rules.coolantThresholdC() + 1 + rnd.nextDouble() * 2;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < readings; i++) {
            if (i > 0) {
                at += 15 * SECOND + rnd.nextLong(25 * SECOND);
                coolant += 1.5 + rnd.nextDouble() * 2.5;
            }
            List<String> faults = i == readings - 1 ? List.of("P0217") : List.of();
            ids.add(sim.add(EventKind.VEHICLE_TELEMETRY, v.id, v.reading(at, coolant, faults), at));
        }
        v.busyUntil = at;
        sim.record(AlertType.ENGINE_OVERHEATING, SubjectKind.VEHICLE, v.id, ids, first, at,
                Map.of("readings", Integer.toString(readings)));
    }
}
