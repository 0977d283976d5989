package io.streamhouse.projections.serving;

import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.state.ParcelScanEntry;
import io.streamhouse.domain.state.ParcelTracking;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A parcel's recent scans, kept apart from its {@link ParcelTracking} state: one small entry per scan in the
 * {@link ServingStores#PARCEL_SCANS} key-value store, under {@code <parcel id>|<13-digit event-time millis>|<event id>},
 * so a parcel's entries are one ordered range. The newest {@link #KEPT} are kept: the range is trimmed every
 * {@link #TRIM_EVERY}th scan past them, at a phase of the parcel's own ({@link #trimsAt}), so it holds at most
 * {@code KEPT + TRIM_EVERY} entries, and a query lists the newest {@code KEPT} of them ({@link #withHistory}).
 *
 * <p><b>Why.</b> With the scans inside the state, every scan re-read, re-encoded, re-logged and re-wrote them all
 * (20 entries once a parcel is busy), and the state's versions in the versioned store grew with them: a scan's cost grew
 * with the parcel's past (docs/benchmarks.md, "Serving"). Here a scan writes one entry and a state that
 * does not grow; the query layer puts the two back together ({@link #withHistory}).
 *
 * <p>The entry's key is also how a repeated scan is recognised (the same event id at the same event time), for as
 * long as it is among the kept ones, as it was when the history lived in the state. States written before this split
 * carry their scans in {@code history}: the first scan folded after the upgrade moves them here ({@link Log}).
 */
public final class ParcelScans {
    /** Entries kept per parcel, newest by event time. */
    public static final int KEPT = 20;

    /**
     * A parcel's range is trimmed back to {@link #KEPT} every this many scans past them, not at every scan. A trim is a
     * range read of the parcel's entries plus a delete per surplus entry; at every scan that range read decoded all
     * of a busy parcel's entries once per scan and skipped the tombstones of the earlier trims. Trimming ten at a time
     * reads the range once per ten scans and writes the same deletes.
     */
    public static final int TRIM_EVERY = 10;

    /**
     * Whether the scan that brings a parcel's applied scans to {@code scans} trims its range: every
     * {@link #TRIM_EVERY}th scan past {@link #KEPT}, at a phase of the parcel's own ({@link #phaseOf}).
     *
     * <p>Without the phase, parcels scanned in step (a sorting run, a load generator going round its parcels) all
     * trimmed within the same few seconds: ten times the deletes and all the range reads at once. On the two-core
     * machine of docs/benchmarks.md ("Serving") that stalls freshness at every tenth round.
     */
    static boolean trimsAt(String parcelId, long scans) {
        return scans > KEPT && (scans - KEPT + phaseOf(parcelId)) % TRIM_EVERY == 0;
    }

    /**
     * Where in the cycle of {@link #TRIM_EVERY} scans the parcel trims: from the id's hash, so ids numbered in sequence
     * (differing by one in their last character) take consecutive phases.
     */
    static int phaseOf(String parcelId) {
        return Math.floorMod(parcelId.hashCode(), TRIM_EVERY);
    }

    /** The key of a scan's entry. */
    public static String keyOf(String parcelId, Instant occurredAt, String eventId) {
        String millis = Long.toString(Math.max(0, occurredAt.toEpochMilli()));
        StringBuilder key = new StringBuilder(parcelId.length() + 15 + eventId.length()).append(parcelId).append('|');
        for (int i = millis.length(); i < 13; i++) {
            key.append('0'); // zero-padded, so that keys sort by time (String.format costs a parse per scan)
        }
        return key.append(millis).append('|').append(eventId).toString();
    }

    /** The first key of a parcel's range (inclusive). */
    public static String from(String parcelId) {
        return parcelId + '|';
    }

    /** The last key of a parcel's range (inclusive: no entry key equals it, and every one of the parcel's sorts before). */
    public static String to(String parcelId) {
        return parcelId + '}';
    }

    /** Whether a key of the range belongs to this parcel (an id containing '|' could share the prefix of another). */
    public static boolean isOf(String parcelId, String key) {
        int at = parcelId.length() + 1;
        if (key.length() < at + 14 || key.charAt(at + 13) != '|') {
            return false;
        }
        for (int i = at; i < at + 13; i++) {
            if (!Character.isDigit(key.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    public static ParcelScanEntry entryOf(ParcelScanned scan) {
        return ParcelScanEntry.newBuilder().setEventId(scan.getEnvelope().getEventId())
                .setOccurredAt(scan.getEnvelope().getOccurredAt()).setStatus(scan.getStatus().name())
                .setHubId(scan.getHubId()).setVehicleId(scan.getVehicleId()).build();
    }

    /**
     * The state with its history from the parcel's entries (in key order, i.e. oldest first): of the newest
     * {@link #KEPT}, those with event time up to {@code asOf} if given. The range may hold up to {@link #TRIM_EVERY}
     * older entries that the next trim removes; they are never listed, so an answer does not depend on where the
     * parcel is between two trims. A state written before the split keeps its own history where it has one.
     */
    public static ParcelTracking withHistory(ParcelTracking state, String parcelId, Iterator<KeyValue<String, ParcelScanEntry>> entries,
                                             Instant asOf) {
        List<ParcelScanEntry> kept = new ArrayList<>(KEPT + TRIM_EVERY);
        while (entries.hasNext()) {
            KeyValue<String, ParcelScanEntry> e = entries.next();
            if (e.value != null && isOf(parcelId, e.key)) {
                kept.add(e.value);
            }
        }
        List<ParcelScanEntry> history = new ArrayList<>(Math.min(kept.size(), KEPT));
        for (ParcelScanEntry entry : kept.subList(Math.max(0, kept.size() - KEPT), kept.size())) {
            if (asOf == null || !entry.getOccurredAt().isAfter(asOf)) {
                history.add(entry);
            }
        }
        if (history.isEmpty()) {
            return state;
        }
        return Folds.carriedOver(state).setHistory(history).build();
    }

    /**
     * The parcel fold's side of the scans store, run by the fold's processor on the task's stream thread: moves a
     * state's own history out (states from before the split), recognises repeats, writes each applied scan and, at
     * every {@link #TRIM_EVERY}th scan past {@link #KEPT}, trims the parcel's range to the newest {@code KEPT}.
     */
    static final class Log implements FoldIntoVersionedStore.Companion<ParcelScanned, ParcelTracking> {
        private final OpenStores openStores;
        private KeyValueStore<String, ParcelScanEntry> scans;
        private int partition;

        /** @param openStores where the store is registered for direct reads while its task runs here */
        Log(OpenStores openStores) {
            this.openStores = openStores;
        }

        @Override
        public void init(ProcessorContext<?, ?> context) {
            scans = context.getStateStore(ServingStores.PARCEL_SCANS);
            partition = context.taskId().partition();
            openStores.openedKeyValue(ServingStores.PARCEL_SCANS, partition, scans);
        }

        @Override
        public void close() {
            if (scans != null) {
                openStores.closedKeyValue(ServingStores.PARCEL_SCANS, partition, scans);
            }
        }

        @Override
        public ParcelTracking beforeFold(String parcelId, ParcelTracking previous) {
            if (previous == null || previous.getHistory().isEmpty()) {
                return previous;
            }
            for (ParcelScanEntry h : previous.getHistory()) {
                scans.putIfAbsent(keyOf(parcelId, h.getOccurredAt(), h.getEventId()), h);
            }
            return Folds.carriedOver(previous).setHistory(List.of()).build();
        }

        @Override
        public boolean alreadyApplied(String parcelId, ParcelScanned scan) {
            return scans.get(keyOf(parcelId, scan.getEnvelope().getOccurredAt(), scan.getEnvelope().getEventId())) != null;
        }

        @Override
        public void applied(String parcelId, ParcelScanned scan, ParcelTracking next) {
            scans.put(keyOf(parcelId, scan.getEnvelope().getOccurredAt(), scan.getEnvelope().getEventId()), entryOf(scan));
            if (!trimsAt(parcelId, next.getScans())) {
                return; // each applied scan adds at most one entry, so the range holds at most KEPT + TRIM_EVERY
            }
            List<String> keys = new ArrayList<>(KEPT + TRIM_EVERY);
            try (KeyValueIterator<String, ParcelScanEntry> range = scans.range(from(parcelId), to(parcelId))) {
                while (range.hasNext()) {
                    String key = range.next().key;
                    if (isOf(parcelId, key)) {
                        keys.add(key);
                    }
                }
            }
            for (int i = 0; i < keys.size() - KEPT; i++) {
                scans.delete(keys.get(i));
            }
        }
    }

    private ParcelScans() {
    }
}
