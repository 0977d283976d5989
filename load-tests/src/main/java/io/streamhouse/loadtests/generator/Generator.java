package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.AlertType;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Generates a run from a {@link GeneratorConfig}: a discrete walk through event time in which each step starts one
 * activity in one of the worlds ({@link PaymentsWorld}, {@link FleetWorld}, {@link ParcelsWorld}, {@link ShopWorld})
 * or plants an anomaly there; an activity writes all its events at once, some of them in the future. The events are
 * then put in event-time order and a share is delayed ({@link Simulation#deliver}).
 *
 * <p>Each world keeps its normal traffic clear of the patterns it plants (what {@link AnomalyChecker} would otherwise
 * find). All worlds draw from one random stream in a fixed order, so a seed gives the same events in the same order.
 */
public final class Generator {
    static final String SOURCE = "load-tests-generator";
    /** Every multi-event activity writes at most this many events; below it only single events fill up the count. */
    private static final int MAX_ACTIVITY_EVENTS = 16;
    private static final List<AlertType> PLANTED = List.of(AlertType.CARD_TESTING, AlertType.IMPOSSIBLE_TRAVEL,
            AlertType.ACCOUNT_TAKEOVER, AlertType.PARCEL_SLA_BREACH, AlertType.ENGINE_OVERHEATING);

    private final GeneratorConfig cfg;
    private final Simulation sim;
    private final SplittableRandom rnd;
    private final Customers customers;
    private final PaymentsWorld payments;
    private final ShopWorld shop;
    private final FleetWorld fleet;
    private final ParcelsWorld parcels;

    public static Generation generate(GeneratorConfig config) {
        return new Generator(config).run();
    }

    /** Builds the worlds; the order of construction is the order of their draws. */
    private Generator(GeneratorConfig cfg) {
        this.cfg = cfg;
        this.sim = new Simulation(cfg);
        this.rnd = sim.random();
        this.customers = new Customers(sim);
        this.payments = new PaymentsWorld(sim, customers);
        customers.populate(payments::issueCards);
        this.shop = new ShopWorld(sim, customers, payments);
        this.fleet = new FleetWorld(sim, payments);
        this.parcels = new ParcelsWorld(sim, fleet);
    }

    private Generation run() {
        int target = cfg.events();
        double[] stride = new double[PLANTED.size()];
        double[] offset = new double[PLANTED.size()];
        int[] stratum = new int[PLANTED.size()];
        for (int i = 0; i < PLANTED.size(); i++) {
            double rate = cfg.rates().of(PLANTED.get(i));
            stride[i] = rate == 0 ? Double.POSITIVE_INFINITY : 1000.0 / rate;
            offset[i] = rnd.nextDouble();
        }
        double meanGap = cfg.meanGap().toMillis();
        while (sim.eventCount() < target) {
            sim.advance(Math.round(-Math.log(1 - rnd.nextDouble()) * meanGap));
            int remaining = target - sim.eventCount();
            if (remaining < MAX_ACTIVITY_EVENTS) {
                payments.normalPayment(true);
                continue;
            }
            int due = -1;
            for (int i = 0; i < PLANTED.size() && due < 0; i++) {
                if (sim.eventCount() >= (stratum[i] + offset[i]) * stride[i]) {
                    due = i;
                }
            }
            if (due >= 0) {
                stratum[due]++;
                offset[due] = rnd.nextDouble();
                plant(PLANTED.get(due));
                continue;
            }
            double roll = rnd.nextDouble();
            if (roll < 0.54) {
                payments.normalPayment(false);
            } else if (roll < 0.84) {
                fleet.normalReading();
            } else if (roll < 0.90) {
                parcels.normalParcel();
            } else if (roll < 0.975) {
                shop.normalOrder();
            } else if (roll < 0.98) {
                shop.signUp();
            } else {
                shop.normalCustomerChange();
            }
        }
        return sim.deliver(payments.cards(), customers.infos());
    }

    private void plant(AlertType type) {
        switch (type) {
            case CARD_TESTING -> payments.plantCardTesting();
            case IMPOSSIBLE_TRAVEL -> payments.plantImpossibleTravel();
            case ACCOUNT_TAKEOVER -> shop.plantAccountTakeover();
            case PARCEL_SLA_BREACH -> parcels.plantParcelStuck();
            case ENGINE_OVERHEATING -> fleet.plantOverheating();
            default -> throw new IllegalStateException("not a planted pattern: " + type);
        }
    }

    static Map<AlertType, Long> countByType(List<Anomaly> anomalies) {
        Map<AlertType, Long> counts = new EnumMap<>(AlertType.class);
        for (Anomaly a : anomalies) {
            counts.merge(a.type(), 1L, Long::sum);
        }
        return counts;
    }
}
