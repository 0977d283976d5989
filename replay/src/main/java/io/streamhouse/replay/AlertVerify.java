package io.streamhouse.replay;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertStatus;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Compares the CEP job's effective alerts of two runs (live and a shadow, or two shadows), restricted to what both
 * must have produced from the input before the cut.
 *
 * <p>A run sees an input event only when its watermark passes the event's time, and a parcel's deadline fires only
 * when its watermark passes the deadline. The shadow's sources end at the cut, so it ends with the final watermark
 * (+&infin;) and evaluates everything; live, at the cut, has evaluated only what its watermark passed. Live's watermark
 * at a matcher, once it has read the cut, is at least the <em>settled horizon</em> of that matcher's inputs: the
 * smallest, over their non-empty partitions, of the newest event time before the cut minus the out-of-orderness bound
 * minus 1 ms (the watermark is per Kafka partition, the minimum over the partitions still active; an idle partition
 * only raises it). So an alert is compared when its window end (the time it fires at) and every matched event's time
 * are at or before the horizon of its pattern, and every matched event is before the cut: both runs have then
 * certainly evaluated it. Other alerts are counted, not compared: the shadow's beyond the horizon (live has not
 * evaluated them yet) and live's caused by input after the cut.
 *
 * <p><b>What is compared: the alerts a reader trusts.</b> Alerts form revision chains: a revision names the alert it
 * replaces in the attribute {@code supersedes}, and a withdrawal (status WITHDRAWN) supersedes an alert that turned out
 * false. Which intermediate alerts a run wrote depends on the order events reached it — live reads an event late
 * (behind its watermark, e.g. around a broker restart) that a rebuild reads in order, so live writes a 3-reading
 * alert anchored at the 2nd reading where the rebuild writes one anchored at the 1st — but the chains end in the same
 * <em>effective</em> alerts: those in scope that no alert in scope supersedes, less withdrawals. Those are compared, by
 * occurrence (pattern, subject, matched events) and within it by alert id (derived from the occurrence: equal
 * occurrences have equal ids, but for a re-issue: an occurrence in effect once on each side, each id written once,
 * compares equal under two ids, since the job re-issues an alert under an id of its own when a late event brought the
 * chain back to an occurrence it had superseded), every field but {@code supersedes} (an alert's envelope times are event times,
 * {@code occurredAt} = {@code recordedAt} = window end, so no other field is informational). An effective alert on one
 * side only, one with another value, or an alert id written twice on a side (effective or not) is a divergence. Chains
 * are resolved within the scope on each side, so a revision beyond the horizon that one side has and the other has
 * not yet written leaves the same alert in effect on both.
 */
final class AlertVerify {
    /** The attribute naming the alert a revision supersedes (the CEP job's {@code Alerts.SUPERSEDES}). */
    static final String SUPERSEDES = "supersedes";

    /** What the input before the cut holds: each event's time by id, and the settled horizon per alert type. */
    record Input(long events, Map<String, Instant> eventTimes, Map<AlertType, Instant> horizons,
                 Map<TopicPartition, Long> lastRecordEnds) {
    }

    private final TopicReader reader;
    private final TopicSerdes serdes;
    private final int maxDifferences;

    AlertVerify(TopicReader reader, TopicSerdes serdes, int maxDifferences) {
        this.reader = reader;
        this.serdes = serdes;
        this.maxDifferences = maxDifferences;
    }

    /** The patterns' inputs: a matcher's watermark is the minimum over these topics' partitions. */
    static List<Topic<String, ?>> inputsOf(AlertType type) {
        return switch (type) {
            case CARD_TESTING, IMPOSSIBLE_TRAVEL -> List.of(Topics.TRANSACTION_REQUESTS);
            case ACCOUNT_TAKEOVER -> List.of(Topics.CUSTOMERS, Topics.ORDERS);
            case PARCEL_SLA_BREACH -> List.of(Topics.PARCEL_SCANS);
            case ENGINE_OVERHEATING, MAINTENANCE_DUE -> List.of(Topics.VEHICLE_TELEMETRY);
            case OTHER -> List.of();
        };
    }

    /** Reads the job's inputs up to the cut (read_committed; unreadable records are dead letters on both sides). */
    Input readInput(Cut cut, Duration outOfOrderness) {
        Map<String, Instant> times = new HashMap<>();
        Map<TopicPartition, Instant> newest = new HashMap<>();
        Map<TopicPartition, Long> lastEnds = new HashMap<>();
        long[] events = {0};
        for (String topicName : CepShadow.inputTopics()) {
            Map<TopicPartition, Long> ends = new HashMap<>();
            cut.offsets().forEach((tp, end) -> {
                if (tp.topic().equals(topicName)) {
                    ends.put(tp, end);
                }
            });
            Topic<String, ?> topic = Topics.all().stream().filter(t -> t.name().equals(topicName)).findFirst().orElseThrow();
            Deserializer<?> decoder = serdes.valueSerde(topic).deserializer();
            boolean eventTime = Topics.eventTimeInputs().contains(topic);
            reader.read(ends, r -> {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                lastEnds.merge(tp, r.offset() + 1, Math::max);
                events[0]++;
                if (!eventTime || r.value() == null) {
                    return;
                }
                Object value;
                try {
                    value = decoder.deserialize(r.topic(), r.value());
                } catch (RuntimeException unreadable) {
                    return;
                }
                Envelope envelope = (Envelope) ((GenericRecord) value).get("envelope");
                times.put(envelope.getEventId(), envelope.getOccurredAt());
                newest.merge(tp, envelope.getOccurredAt(), (a, b) -> a.isAfter(b) ? a : b);
            });
        }
        Map<AlertType, Instant> horizons = new TreeMap<>();
        for (AlertType type : AlertType.values()) {
            Set<String> topics = new TreeSet<>(inputsOf(type).stream().map(Topic::name).toList());
            newest.entrySet().stream().filter(e -> topics.contains(e.getKey().topic())).map(Map.Entry::getValue)
                    .min(Instant::compareTo)
                    .ifPresent(t -> horizons.put(type, t.minus(outOfOrderness).minusMillis(1)));
        }
        return new Input(events[0], times, horizons, lastEnds);
    }

    /** Every alert on the three alert topics of a run ({@code prefix} + live name), grouped by id. */
    Map<String, List<Alert>> alerts(String prefix) {
        Deserializer<Alert> decoder = serdes.valueSerde(Topics.FRAUD_ALERTS).deserializer();
        Map<String, List<Alert>> byId = new TreeMap<>();
        for (Topic<String, Alert> topic : CepShadow.alertTopics()) {
            reader.readAll(prefix + topic.name(), r -> {
                Alert a;
                try {
                    a = decoder.deserialize(topic.name(), r.value());
                } catch (RuntimeException unreadable) {
                    byId.computeIfAbsent("unreadable@" + r.topic() + "/" + r.partition() + "/" + r.offset(), k -> new ArrayList<>());
                    return;
                }
                byId.computeIfAbsent(a.getAlertId(), k -> new ArrayList<>()).add(a);
            });
        }
        return byId;
    }

    /** True if both runs must have produced {@code alert} from the input before the cut (see the class comment). */
    static boolean settled(Alert alert, Input input) {
        Instant horizon = input.horizons().get(alert.getType());
        if (horizon == null || alert.getWindowEnd().isAfter(horizon)) {
            return false;
        }
        for (String id : alert.getMatchedEventIds()) {
            Instant t = input.eventTimes().get(id);
            if (t == null || t.isAfter(horizon)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Compares what a reader trusts: the effective alerts of each side (see the class comment), by occurrence, and
     * within an occurrence by alert id (derived from the occurrence, so equal where the occurrence is). An effective
     * alert on one side only, one whose fields differ (but for {@code supersedes}), or an alert id written more than
     * once on a side (effective or not) is a divergence.
     */
    Report.AlertReport compare(Input input, Map<String, List<Alert>> live, Map<String, List<Alert>> shadow) {
        Function<Map<String, List<Alert>>, Map<String, List<Alert>>> inScope = side -> {
            Map<String, List<Alert>> kept = new TreeMap<>();
            side.forEach((id, alerts) -> {
                if (!alerts.isEmpty() && settled(alerts.get(0), input)) {
                    kept.put(id, alerts);
                }
            });
            return kept;
        };
        Map<String, List<Alert>> a = inScope.apply(live), b = inScope.apply(shadow);
        Map<String, List<Alert>> x = compared(a), y = compared(b);
        Map<String, Set<String>> byOccurrence = new TreeMap<>();
        for (Map<String, List<Alert>> side : List.of(x, y)) {
            side.forEach((id, alerts) -> byOccurrence.computeIfAbsent(occurrenceOf(alerts.get(0)), k -> new TreeSet<>()).add(id));
        }
        long onlyLive = 0, onlyShadow = 0, differing = 0;
        List<Report.Difference> differences = new ArrayList<>();
        for (Map.Entry<String, Set<String>> occurrence : byOccurrence.entrySet()) {
            if (sameUnderAnotherId(occurrence.getValue(), x, y, a, b)) {
                continue;
            }
            for (String id : occurrence.getValue()) {
                List<Alert> p = x.getOrDefault(id, List.of()), q = y.getOrDefault(id, List.of());
                if (p.size() == 1 && q.size() == 1 && withoutRevisionLink(p.get(0)).equals(withoutRevisionLink(q.get(0)))) {
                    continue;
                }
                int writtenLive = a.getOrDefault(id, List.of()).size(), writtenShadow = b.getOrDefault(id, List.of()).size();
                String reason;
                if (writtenLive > 1 || writtenShadow > 1) {
                    differing++;
                    reason = "alerts with this id: " + writtenLive + " live, " + writtenShadow + " shadow";
                } else if (q.isEmpty()) {
                    onlyLive++;
                    reason = "in effect only in live";
                } else if (p.isEmpty()) {
                    onlyShadow++;
                    reason = "in effect only in the shadow";
                } else {
                    differing++;
                    reason = "fields differ: " + String.join(", ", differingFields(withoutRevisionLink(p.get(0)),
                            withoutRevisionLink(q.get(0))));
                }
                if (differences.size() < maxDifferences) {
                    differences.add(new Report.Difference(id, p.isEmpty() ? null : p.toString(), q.isEmpty() ? null : q.toString(),
                            reason + " (occurrence " + occurrence.getKey() + ")"));
                }
            }
        }
        long shadowBeyond = shadow.size() - b.size(), liveOutside = live.size() - a.size();
        Map<String, String> horizons = new TreeMap<>();
        input.horizons().forEach((type, t) -> horizons.put(type.toString(), t.toString()));
        return new Report.AlertReport(effectiveCount(x), effectiveCount(y), onlyLive, onlyShadow, differing,
                onlyLive + onlyShadow + differing, liveOutside, shadowBeyond, horizons, differences);
    }

    /**
     * Whether an occurrence is in effect once on each side under two ids, each written once, equal but for the id and
     * the revision link: the CEP job re-issues an occurrence's alert under an id of its own when a late event brought
     * the chain back to it after its first alert was superseded (an alert id is written once), which one side may have
     * gone through and the other not.
     */
    private static boolean sameUnderAnotherId(Set<String> ids, Map<String, List<Alert>> x, Map<String, List<Alert>> y,
                                              Map<String, List<Alert>> writtenX, Map<String, List<Alert>> writtenY) {
        List<String> left = ids.stream().filter(x::containsKey).toList(), right = ids.stream().filter(y::containsKey).toList();
        if (left.size() != 1 || right.size() != 1 || left.get(0).equals(right.get(0))
                || writtenX.get(left.get(0)).size() != 1 || writtenY.get(right.get(0)).size() != 1) {
            return false;
        }
        return withoutIdentity(x.get(left.get(0)).get(0)).equals(withoutIdentity(y.get(right.get(0)).get(0)));
    }

    /** The alert without its revision link and its own id (in the envelope too). */
    static Alert withoutIdentity(Alert alert) {
        Alert a = withoutRevisionLink(alert);
        return Alert.newBuilder(a).setAlertId("")
                .setEnvelope(io.streamhouse.domain.event.Envelope.newBuilder(a.getEnvelope()).setEventId("").build()).build();
    }

    /**
     * The alerts of one side to compare, by id: every effective one — not superseded by another alert of the side
     * (attribute {@code supersedes}), and not a withdrawal (status WITHDRAWN, which also supersedes the alert it
     * withdraws) — and every id written more than once, effective or not.
     */
    static Map<String, List<Alert>> compared(Map<String, List<Alert>> side) {
        Set<String> superseded = new TreeSet<>();
        side.values().forEach(alerts -> alerts.forEach(alert -> {
            String before = alert.getAttributes().get(SUPERSEDES);
            if (before != null) {
                superseded.add(before);
            }
        }));
        Map<String, List<Alert>> kept = new TreeMap<>();
        side.forEach((id, alerts) -> {
            boolean effective = !superseded.contains(id) && alerts.get(0).getStatus() != AlertStatus.WITHDRAWN;
            if (effective || alerts.size() > 1) {
                kept.put(id, alerts);
            }
        });
        return kept;
    }

    private static long effectiveCount(Map<String, List<Alert>> compared) {
        return compared.values().stream().filter(l -> l.size() == 1).count();
    }

    /** Pattern, subject and events: what one occurrence is, however many revisions it took to reach its alert. */
    static String occurrenceOf(Alert alert) {
        return alert.getPatternId() + "|" + alert.getSubject().getKind() + ":" + alert.getSubject().getId() + "|"
                + String.join(",", new TreeSet<>(alert.getMatchedEventIds()));
    }

    /**
     * The alert without the id of the alert it superseded: that names an intermediate alert, which depends on the
     * order events reached the job (live had a late event that a rebuild reads in order), not on the log.
     */
    static Alert withoutRevisionLink(Alert alert) {
        if (!alert.getAttributes().containsKey(SUPERSEDES)) {
            return alert;
        }
        Map<String, String> attributes = new TreeMap<>(alert.getAttributes());
        attributes.remove(SUPERSEDES);
        return Alert.newBuilder(alert).setAttributes(attributes).build();
    }

    /** The top-level fields (and envelope fields, as {@code envelope.x}) whose values differ. */
    static List<String> differingFields(Alert x, Alert y) {
        List<String> fields = new ArrayList<>();
        for (Schema.Field f : Alert.getClassSchema().getFields()) {
            Object p = x.get(f.pos()), q = y.get(f.pos());
            if (Objects.equals(p, q)) {
                continue;
            }
            if (p instanceof GenericRecord pr && q instanceof GenericRecord qr && pr.getSchema().equals(qr.getSchema())) {
                for (Schema.Field g : pr.getSchema().getFields()) {
                    if (!Objects.equals(pr.get(g.pos()), qr.get(g.pos()))) {
                        fields.add(f.name() + "." + g.name());
                    }
                }
            } else {
                fields.add(f.name());
            }
        }
        return fields;
    }
}
