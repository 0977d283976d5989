package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import org.apache.avro.specific.SpecificRecord;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;

/**
 * What the worlds of one generation share: the single seeded random stream, the simulated clock, the events written
 * so far and the planted ground truth. Every draw of a run comes from this one stream, so the order in which the
 * worlds draw is part of what a seed means; event ids come from the seed and a counter. Only the generator moves the
 * clock.
 */
final class Simulation {
    static final long SECOND = 1_000, MINUTE = 60_000, HOUR = 3_600_000;

    private final GeneratorConfig cfg;
    private final PatternRules rules;
    private final SplittableRandom rnd;
    private final String tag;
    private final List<Draft> drafts = new ArrayList<>();
    private final List<Anomaly> planted = new ArrayList<>();
    private long now;
    private long eventSeq;

    /** An event before delivery order is decided. */
    private record Draft(long at, long seq, EventKind kind, String key, SpecificRecord value, Envelope envelope) {
    }

    Simulation(GeneratorConfig cfg) {
        this.cfg = cfg;
        this.rules = cfg.rules();
        this.rnd = new SplittableRandom(cfg.seed());
        this.tag = Long.toHexString(cfg.seed());
        this.now = cfg.start().toEpochMilli();
    }

    GeneratorConfig config() {
        return cfg;
    }

    PatternRules rules() {
        return rules;
    }

    SplittableRandom random() {
        return rnd;
    }

    /** Part of every generated id, so runs with different seeds never share an id. */
    String tag() {
        return tag;
    }

    /** The event time of the activity being written. */
    long now() {
        return now;
    }

    void advance(long millis) {
        now += millis;
    }

    int eventCount() {
        return drafts.size();
    }

    String nextEventId() {
        return UUID.nameUUIDFromBytes(("streamhouse-generator:" + cfg.seed() + ":" + (eventSeq++))
                .getBytes(StandardCharsets.UTF_8)).toString();
    }

    Envelope envelope(String eventId, String key, long at, Class<? extends SpecificRecord> type) {
        // recordedAt is set again when the delivery order is known.
        Instant t = Instant.ofEpochMilli(at);
        return Envelopes.create(eventId, key, t, t, Generator.SOURCE, EventTypes.versionOf(type), null);
    }

    /** Writes an event at event time {@code at}; returns its event id. */
    String add(EventKind kind, String key, SpecificRecord value, long at) {
        Envelope envelope = (Envelope) value.get(0);
        drafts.add(new Draft(at, drafts.size(), kind, key, value, envelope));
        return envelope.getEventId();
    }

    /** Records a planted anomaly as ground truth, with the pattern's parameters and the facts of this instance. */
    void record(AlertType type, SubjectKind kind, String subject, List<String> ids, long from, long to,
                Map<String, String> facts) {
        Map<String, String> parameters = new TreeMap<>(rules.parametersOf(type));
        parameters.putAll(facts);
        planted.add(new Anomaly(type, kind, subject, ids, Instant.ofEpochMilli(from), Instant.ofEpochMilli(to), parameters));
    }

    /** Within about 5 km of a point. */
    GeoPoint jitter(GeoPoint p) {
        return Geo.point(p.getLat() + (rnd.nextDouble() - 0.5) * 0.08, p.getLon() + (rnd.nextDouble() - 0.5) * 0.12);
    }

    String pick(String[] options) {
        return options[rnd.nextInt(options.length)];
    }

    /**
     * Puts the drafts in event-time order, then delays a {@code lateRatio} share of them: most by up to the lateness
     * bound, {@code beyondBoundShare} of them past it. An event counts as late when an event with a later event time
     * was delivered before it; its lateness is by how much. recordedAt becomes the (simulated) delivery time.
     */
    Generation deliver(List<CardInfo> cards, List<CustomerInfo> customers) {
        List<Draft> byTime = new ArrayList<>(drafts);
        byTime.sort(Comparator.comparingLong(Draft::at).thenComparingLong(Draft::seq));
        int n = byTime.size();
        long bound = cfg.latenessBound().toMillis();
        long minDelay = Math.min(SECOND, bound / 2);
        long[] deliverAt = new long[n];
        for (int i = 0; i < n; i++) {
            long delay = 0;
            if (rnd.nextDouble() < cfg.lateRatio()) {
                delay = rnd.nextDouble() < cfg.beyondBoundShare()
                        ? bound + 1 + rnd.nextLong(2 * bound)
                        : minDelay + rnd.nextLong(bound - minDelay + 1);
            }
            deliverAt[i] = byTime.get(i).at() + delay;
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.<Integer>comparingLong(i -> deliverAt[i]).thenComparingInt(i -> i));
        List<GeneratedEvent> events = new ArrayList<>(n);
        List<LateEvent> late = new ArrayList<>();
        long newest = Long.MIN_VALUE;
        for (int d = 0; d < n; d++) {
            Draft draft = byTime.get(order[d]);
            draft.envelope().setRecordedAt(Instant.ofEpochMilli(deliverAt[order[d]]));
            long lateness = newest > draft.at() ? newest - draft.at() : 0;
            newest = Math.max(newest, draft.at());
            Instant occurredAt = Instant.ofEpochMilli(draft.at());
            events.add(new GeneratedEvent(d, draft.kind(), draft.key(), draft.envelope().getEventId(), occurredAt,
                    draft.value(), lateness));
            if (lateness > 0) {
                late.add(new LateEvent(draft.envelope().getEventId(), draft.kind(), draft.key(), occurredAt, d,
                        lateness, lateness > bound));
            }
        }
        List<Anomaly> anomalies = new ArrayList<>(planted);
        anomalies.sort(Comparator.comparing(Anomaly::windowStart).thenComparing(Anomaly::type)
                .thenComparing(Anomaly::subjectId));
        return new Generation(cfg, events, anomalies, late, cards, customers);
    }
}
