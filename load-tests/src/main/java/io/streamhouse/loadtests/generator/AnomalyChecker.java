package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.VehicleTelemetry;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Finds every occurrence of the {@link PatternRules} patterns in a stream of events, by brute force and in any
 * delivery order (it sorts by event time first). It knows nothing of how the generator planted them: it reads the
 * events only, so "found == planted" on the generator's output is evidence that normal traffic does not match a
 * pattern by accident and that every planted occurrence is complete.
 *
 * <p>The patterns, per subject, in event-time order (ties by event id):
 * <ul>
 *   <li>card testing: a large authorization preceded, within the window, by at least the minimum number of small
 *       ones since the card's previous finding;</li>
 *   <li>impossible travel: two consecutive card-present (card present, contactless, with a location) authorizations
 *       whose implied speed exceeds the limit;</li>
 *   <li>account takeover: a high-value order placed within the window after one or more address or e-mail changes
 *       of its customer (all changes in the window are part of it); when the address changed, the order must ship to
 *       the new address;</li>
 *   <li>parcel SLA breach: the last OUT_FOR_DELIVERY scan, and a DELIVERED scan later than promisedBy + grace, or none
 *       while the stream already reaches past that deadline;</li>
 *   <li>engine overheating: a run of consecutive readings, each above the threshold and hotter than the one before,
 *       all within the window of the first, at least the minimum long.</li>
 * </ul>
 */
public final class AnomalyChecker {

    private static final Comparator<GeneratedEvent> EVENT_TIME =
            Comparator.comparing(GeneratedEvent::occurredAt).thenComparing(GeneratedEvent::eventId);

    public static List<Anomaly> scan(List<GeneratedEvent> events, PatternRules rules) {
        Map<String, List<GeneratedEvent>> byCard = new TreeMap<>();
        Map<String, List<GeneratedEvent>> byCustomer = new TreeMap<>();
        Map<String, List<GeneratedEvent>> byParcel = new TreeMap<>();
        Map<String, List<GeneratedEvent>> byVehicle = new TreeMap<>();
        Instant horizon = Instant.MIN;
        for (GeneratedEvent e : events) {
            if (e.occurredAt().isAfter(horizon)) {
                horizon = e.occurredAt();
            }
            if (e.value() instanceof TransactionAuthorizationRequested tx) {
                byCard.computeIfAbsent(tx.getCardToken(), k -> new ArrayList<>()).add(e);
            } else if (e.value() instanceof CustomerEvent c) {
                byCustomer.computeIfAbsent(c.getCustomerId(), k -> new ArrayList<>()).add(e);
            } else if (e.value() instanceof OrderEvent o) {
                byCustomer.computeIfAbsent(o.getCustomerId(), k -> new ArrayList<>()).add(e);
            } else if (e.value() instanceof ParcelScanned p) {
                byParcel.computeIfAbsent(p.getParcelId(), k -> new ArrayList<>()).add(e);
            } else if (e.value() instanceof VehicleTelemetry v) {
                byVehicle.computeIfAbsent(v.getVehicleId(), k -> new ArrayList<>()).add(e);
            }
        }
        List<Anomaly> found = new ArrayList<>();
        byCard.forEach((card, list) -> {
            list.sort(EVENT_TIME);
            cardTesting(card, list, rules, found);
            impossibleTravel(card, list, rules, found);
        });
        byCustomer.forEach((customer, list) -> {
            list.sort(EVENT_TIME);
            accountTakeover(customer, list, rules, found);
        });
        Instant end = horizon;
        byParcel.forEach((parcel, list) -> {
            list.sort(EVENT_TIME);
            parcelBreach(parcel, list, rules, end, found);
        });
        byVehicle.forEach((vehicle, list) -> {
            list.sort(EVENT_TIME);
            overheating(vehicle, list, rules, found);
        });
        found.sort(Comparator.comparing(Anomaly::windowStart).thenComparing(Anomaly::type)
                .thenComparing(Anomaly::subjectId));
        return found;
    }

    private static void cardTesting(String card, List<GeneratedEvent> txs, PatternRules rules, List<Anomaly> found) {
        Deque<GeneratedEvent> smalls = new ArrayDeque<>();
        for (GeneratedEvent e : txs) {
            var amount = ((TransactionAuthorizationRequested) e.value()).getAmount().getAmount();
            if (amount.compareTo(rules.cardTestingSmallMax()) <= 0) {
                smalls.addLast(e);
            } else if (amount.compareTo(rules.cardTestingLargeMin()) >= 0) {
                Instant from = e.occurredAt().minus(rules.cardTestingWindow());
                while (!smalls.isEmpty() && smalls.peekFirst().occurredAt().isBefore(from)) {
                    smalls.removeFirst();
                }
                if (smalls.size() >= rules.cardTestingMinSmall()) {
                    List<String> ids = new ArrayList<>(smalls.stream().map(GeneratedEvent::eventId).toList());
                    ids.add(e.eventId());
                    found.add(new Anomaly(AlertType.CARD_TESTING, SubjectKind.CARD, card, ids,
                            smalls.peekFirst().occurredAt(), e.occurredAt(), facts(rules, AlertType.CARD_TESTING,
                            "smallCount", Integer.toString(smalls.size()))));
                    smalls.clear();
                }
            }
        }
    }

    private static void impossibleTravel(String card, List<GeneratedEvent> txs, PatternRules rules, List<Anomaly> found) {
        GeneratedEvent previous = null;
        for (GeneratedEvent e : txs) {
            var tx = (TransactionAuthorizationRequested) e.value();
            boolean present = tx.getLocation() != null
                    && (tx.getChannel() == Channel.CARD_PRESENT || tx.getChannel() == Channel.CONTACTLESS);
            if (!present) {
                continue;
            }
            if (previous != null) {
                var p = (TransactionAuthorizationRequested) previous.value();
                double kmh = Geo.speedKmh(p.getLocation(), previous.occurredAt().toEpochMilli(), tx.getLocation(),
                        e.occurredAt().toEpochMilli());
                if (kmh > rules.impossibleTravelKmh()) {
                    double km = Geo.distanceKm(p.getLocation(), tx.getLocation());
                    found.add(new Anomaly(AlertType.IMPOSSIBLE_TRAVEL, SubjectKind.CARD, card,
                            List.of(previous.eventId(), e.eventId()), previous.occurredAt(), e.occurredAt(),
                            facts(rules, AlertType.IMPOSSIBLE_TRAVEL, "distanceKm",
                                    String.format(java.util.Locale.ROOT, "%.1f", km))));
                }
            }
            previous = e;
        }
    }

    private static void accountTakeover(String customer, List<GeneratedEvent> events, PatternRules rules,
                                        List<Anomaly> found) {
        Deque<GeneratedEvent> changes = new ArrayDeque<>();
        for (GeneratedEvent e : events) {
            if (e.value() instanceof CustomerEvent c
                    && (c.getChange() instanceof CustomerAddressChanged || c.getChange() instanceof CustomerEmailChanged)) {
                changes.addLast(e);
            } else if (e.value() instanceof OrderEvent o && o.getChange() instanceof OrderPlaced placed
                    && placed.getTotal().getAmount().compareTo(rules.takeoverHighValue()) >= 0) {
                Instant from = e.occurredAt().minus(rules.takeoverWindow());
                List<GeneratedEvent> inWindow = changes.stream().filter(c -> !c.occurredAt().isBefore(from)).toList();
                if (inWindow.isEmpty()) {
                    continue;
                }
                CustomerAddressChanged lastAddress = null;
                for (GeneratedEvent c : inWindow) {
                    if (((CustomerEvent) c.value()).getChange() instanceof CustomerAddressChanged a) {
                        lastAddress = a;
                    }
                }
                if (lastAddress != null && !lastAddress.getCurrent().equals(placed.getShippingAddress())) {
                    continue;
                }
                List<String> ids = new ArrayList<>(inWindow.stream().map(GeneratedEvent::eventId).toList());
                ids.add(e.eventId());
                String kinds = inWindow.stream()
                        .map(c -> ((CustomerEvent) c.value()).getChange() instanceof CustomerAddressChanged ? "address" : "email")
                        .reduce((a, b) -> a + "+" + b).orElseThrow();
                found.add(new Anomaly(AlertType.ACCOUNT_TAKEOVER, SubjectKind.CUSTOMER, customer, ids,
                        inWindow.get(0).occurredAt(), e.occurredAt(),
                        facts(rules, AlertType.ACCOUNT_TAKEOVER, "changes", kinds)));
            }
        }
    }

    private static void parcelBreach(String parcel, List<GeneratedEvent> scans, PatternRules rules, Instant horizon,
                                     List<Anomaly> found) {
        GeneratedEvent outForDelivery = null;
        GeneratedEvent delivered = null;
        for (GeneratedEvent e : scans) {
            ParcelScanned s = (ParcelScanned) e.value();
            if (s.getStatus() == ParcelStatus.OUT_FOR_DELIVERY) {
                outForDelivery = e;
                delivered = null;
            } else if (s.getStatus() == ParcelStatus.DELIVERED && outForDelivery != null && delivered == null) {
                delivered = e;
            }
        }
        if (outForDelivery == null || ((ParcelScanned) outForDelivery.value()).getPromisedBy() == null) {
            return;
        }
        Instant promisedBy = ((ParcelScanned) outForDelivery.value()).getPromisedBy();
        Instant deadline = promisedBy.plus(rules.parcelGrace());
        List<String> ids;
        String outcome;
        if (delivered != null) {
            if (!delivered.occurredAt().isAfter(deadline)) {
                return;
            }
            ids = List.of(outForDelivery.eventId(), delivered.eventId());
            outcome = "delivered-late";
        } else {
            // Out for delivery after the deadline is itself the breach (as the CEP job's ParcelSlaPattern).
            if (!horizon.isAfter(deadline) && !outForDelivery.occurredAt().isAfter(deadline)) {
                return;
            }
            ids = List.of(outForDelivery.eventId());
            outcome = "never-delivered";
        }
        Map<String, String> facts = facts(rules, AlertType.PARCEL_SLA_BREACH, "outcome", outcome);
        facts.put("promisedBy", promisedBy.toString());
        // From the out-for-delivery scan to the deadline, or from the deadline to a scan that came after it.
        Instant sentOut = outForDelivery.occurredAt();
        found.add(new Anomaly(AlertType.PARCEL_SLA_BREACH, SubjectKind.PARCEL, parcel, ids,
                sentOut.isAfter(deadline) ? deadline : sentOut, sentOut.isAfter(deadline) ? sentOut : deadline, facts));
    }

    private static void overheating(String vehicle, List<GeneratedEvent> readings, PatternRules rules,
                                    List<Anomaly> found) {
        List<GeneratedEvent> run = new ArrayList<>();
        double last = Double.NEGATIVE_INFINITY;
        for (GeneratedEvent e : readings) {
            double coolant = ((VehicleTelemetry) e.value()).getCoolantTempC();
            boolean continues = coolant > rules.coolantThresholdC() && coolant > last && !run.isEmpty()
                    && !e.occurredAt().isAfter(run.get(0).occurredAt().plus(rules.overheatingWindow()));
            if (!continues) {
                emitRun(vehicle, run, rules, found);
                run.clear();
                if (coolant > rules.coolantThresholdC()) {
                    run.add(e);
                }
            } else {
                run.add(e);
            }
            last = coolant;
        }
        emitRun(vehicle, run, rules, found);
    }

    private static void emitRun(String vehicle, List<GeneratedEvent> run, PatternRules rules, List<Anomaly> found) {
        if (run.size() >= rules.overheatingMinReadings()) {
            found.add(new Anomaly(AlertType.ENGINE_OVERHEATING, SubjectKind.VEHICLE, vehicle,
                    run.stream().map(GeneratedEvent::eventId).toList(), run.get(0).occurredAt(),
                    run.get(run.size() - 1).occurredAt(),
                    facts(rules, AlertType.ENGINE_OVERHEATING, "readings", Integer.toString(run.size()))));
        }
    }

    private static Map<String, String> facts(PatternRules rules, AlertType type, String key, String value) {
        Map<String, String> p = new TreeMap<>(rules.parametersOf(type));
        p.put(key, value);
        return p;
    }

    /** Found vs expected, by {@link Anomaly#identity()}. */
    public record Score(int expected, int found, int truePositives, List<Anomaly> missed, List<Anomaly> spurious) {
        public double recall() {
            return expected == 0 ? 1.0 : (double) truePositives / expected;
        }

        public double precision() {
            return found == 0 ? 1.0 : (double) truePositives / found;
        }
    }

    public static Score score(List<Anomaly> expected, List<Anomaly> found) {
        Map<String, Anomaly> want = new LinkedHashMap<>();
        expected.forEach(a -> want.put(a.identity(), a));
        Map<String, Anomaly> got = new LinkedHashMap<>();
        found.forEach(a -> got.put(a.identity(), a));
        List<Anomaly> missed = want.entrySet().stream().filter(e -> !got.containsKey(e.getKey())).map(Map.Entry::getValue).toList();
        List<Anomaly> spurious = got.entrySet().stream().filter(e -> !want.containsKey(e.getKey())).map(Map.Entry::getValue).toList();
        return new Score(expected.size(), found.size(), expected.size() - missed.size(), missed, spurious);
    }

    private AnomalyChecker() {
    }
}
