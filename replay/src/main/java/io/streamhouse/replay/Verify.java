package io.streamhouse.replay;

import io.streamhouse.detection.decision.DecisionTopology;
import io.streamhouse.plumbing.OutputTopics;
import io.streamhouse.domain.event.AlertsSeen;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.topic.TopicSerdes;
import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Compares two runs of one target (live and a shadow, or two shadows): each store key by key, read from both sides'
 * changelogs, with an order-independent digest per partition (a value holding an Avro map by its {@link CanonicalValues
 * canonical bytes}, its maps' entries in key order); decisions by transaction id, every field but the
 * informational latency and the decider's wall-clock {@code recordedAt}.
 */
final class Verify {

    /** One run of a target: its application id (changelogs) and where it wrote its outputs. */
    record Side(String applicationId, OutputTopics outputs) {
    }

    private final TopicReader reader;
    private final TopicSerdes serdes;
    private final int maxDifferences;

    Verify(TopicReader reader, TopicSerdes serdes, int maxDifferences) {
        this.reader = reader;
        this.serdes = serdes;
        this.maxDifferences = maxDifferences;
    }

    StoreState read(Target.Store store, String applicationId) {
        String changelog = store.changelog(applicationId);
        var ends = reader.ends(changelog);
        StoreState state = new StoreState(store.versioned(), ends.size());
        reader.read(ends, r -> state.apply(r.partition(), r.key(), r.value(), r.timestamp()));
        return state;
    }

    Report.StoreReport compare(Target.Store store, Side live, Side shadow) {
        return compare(store, live, read(store, live.applicationId()), read(store, shadow.applicationId()));
    }

    /**
     * Every store compared, as {@link #compare(Target.Store, Side, Side)} one after another would, with the changelog
     * reads (both sides of every store) running on up to {@link #READERS} threads at once: a read is mostly waiting
     * on fetches and decoding keys, and the verification of a million events was a fifth of a rebuild's wall time.
     */
    List<Report.StoreReport> compareAll(List<Target.Store> stores, Side live, Side shadow) throws InterruptedException {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(READERS, r -> {
            Thread t = new Thread(r, "verify-reader");
            t.setDaemon(true);
            return t;
        });
        try {
            List<java.util.concurrent.Future<StoreState>> liveReads = new ArrayList<>(), shadowReads = new ArrayList<>();
            for (Target.Store store : stores) {
                liveReads.add(pool.submit(() -> read(store, live.applicationId())));
                shadowReads.add(pool.submit(() -> read(store, shadow.applicationId())));
            }
            List<Report.StoreReport> reports = new ArrayList<>();
            for (int i = 0; i < stores.size(); i++) {
                reports.add(compare(stores.get(i), live, done(liveReads.get(i)), done(shadowReads.get(i))));
                liveReads.set(i, null); // let the contents go once compared
                shadowReads.set(i, null);
            }
            return reports;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Parallel reads at most (each holds one consumer, and its store's contents until compared). */
    static final int READERS = 4;

    private static StoreState done(java.util.concurrent.Future<StoreState> read) throws InterruptedException {
        try {
            return read.get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private Report.StoreReport compare(Target.Store store, Side live, StoreState liveState, StoreState shadowState) {
        var liveContents = liveState.contents();
        var shadowContents = shadowState.contents();
        Deserializer<?> decoder = serdes.stateSerde(store.valueType()).deserializer();
        String changelog = store.changelog(live.applicationId());
        List<Report.PartitionDigest> digests = new ArrayList<>();
        List<Report.Difference> differences = new ArrayList<>();
        long divergent = 0, keys = 0;
        Set<Integer> partitions = new TreeSet<>(liveContents.keySet());
        partitions.addAll(shadowContents.keySet());
        var canonical = CanonicalValues.of(store.valueType(), decoder, changelog);
        for (int p : partitions) {
            Map<String, byte[]> l = canonical(liveContents.getOrDefault(p, Map.of()), canonical);
            Map<String, byte[]> s = canonical(shadowContents.getOrDefault(p, Map.of()), canonical);
            var digest = new Report.PartitionDigest(p, l.size(), s.size(), StoreState.digest(l), StoreState.digest(s));
            digests.add(digest);
            keys += l.size();
            if (digest.equal()) {
                continue;
            }
            Set<String> all = new TreeSet<>(l.keySet());
            all.addAll(s.keySet());
            for (String key : all) {
                byte[] a = l.get(key), b = s.get(key);
                if (a != null && b != null && java.util.Arrays.equals(a, b)) {
                    continue;
                }
                divergent++;
                if (differences.size() < maxDifferences) {
                    a = liveContents.getOrDefault(p, Map.of()).get(key);
                    b = shadowContents.getOrDefault(p, Map.of()).get(key);
                    differences.add(new Report.Difference(key, show(decoder, changelog, a), show(decoder, changelog, b),
                            a == null ? "only in the shadow" : b == null ? "only in live" : "values differ"));
                }
            }
        }
        return new Report.StoreReport(store.name(), digests, keys, divergent, differences);
    }

    /** {@code contents} with each value replaced by what it is compared by; the same map when that is the bytes. */
    private static Map<String, byte[]> canonical(Map<String, byte[]> contents,
                                                 java.util.Optional<java.util.function.UnaryOperator<byte[]>> canonical) {
        if (canonical.isEmpty() || contents.isEmpty()) {
            return contents;
        }
        Map<String, byte[]> out = new java.util.HashMap<>(contents.size() * 2);
        contents.forEach((k, v) -> out.put(k, canonical.get().apply(v)));
        return out;
    }

    private static String show(Deserializer<?> decoder, String topic, byte[] value) {
        if (value == null) {
            return null;
        }
        try {
            return String.valueOf(decoder.deserialize(topic, value));
        } catch (RuntimeException e) {
            return "unreadable (" + e.getMessage() + "): " + java.util.HexFormat.of().formatHex(value);
        }
    }

    /**
     * Decisions of the requests before the cut, by transaction id. Requests that were dead-lettered have no decision
     * on either side; a side with two decisions for one transaction id differs even if both are alike.
     */
    Report.DecisionReport compareDecisions(Cut cut, Side live, Side shadow) {
        Map<TopicPartition, Long> requestEnds = new HashMap<>();
        cut.offsets().forEach((tp, end) -> {
            if (tp.topic().equals(Topics.TRANSACTION_REQUESTS.name())) {
                requestEnds.put(tp, end);
            }
        });
        Set<String> transactions = transactions(requestEnds);
        return compareDecisions(transactions, decisions(live.outputs().of(Topics.TRANSACTION_DECISIONS.name()), transactions),
                decisions(shadow.outputs().of(Topics.TRANSACTION_DECISIONS.name()), transactions));
    }

    /** The transaction ids of the readable requests on these partitions, before their ends. */
    Set<String> transactions(Map<TopicPartition, Long> requestEnds) {
        Deserializer<TransactionAuthorizationRequested> requests = serdes.valueSerde(Topics.TRANSACTION_REQUESTS).deserializer();
        Set<String> transactions = new HashSet<>();
        reader.read(requestEnds, r -> {
            try {
                transactions.add(requests.deserialize(Topics.TRANSACTION_REQUESTS.name(), r.value()).getTransactionId());
            } catch (RuntimeException unreadable) {
                // dead-lettered by both sides: no decision to compare
            }
        });
        return transactions;
    }

    /**
     * Each transaction's decisions on two sides, as {@link #decisions} collects them: one decision per id on each side,
     * equal in every field a rerun reproduces, is the only pass.
     */
    Report.DecisionReport compareDecisions(Set<String> transactions, Map<String, List<TransactionDecision>> a,
                                           Map<String, List<TransactionDecision>> b) {
        Set<String> ids = new TreeSet<>(a.keySet());
        ids.addAll(b.keySet());
        long divergent = 0, ruleSets = 0;
        List<Report.Difference> differences = new ArrayList<>();
        for (String id : ids) {
            List<TransactionDecision> x = a.getOrDefault(id, List.of()), y = b.getOrDefault(id, List.of());
            if (x.equals(y) && x.size() == 1) {
                continue;
            }
            divergent++;
            String reason;
            if (x.size() != 1 || y.size() != 1) {
                reason = "decisions: " + x.size() + " live, " + y.size() + " shadow";
            } else if (x.get(0).getRuleSetVersion() != y.get(0).getRuleSetVersion()) {
                ruleSets++;
                reason = "rule set v" + x.get(0).getRuleSetVersion() + " live, v" + y.get(0).getRuleSetVersion()
                        + " shadow: the shadow's rules global table starts at the latest rules, live used those in force then";
            } else {
                reason = "decisions differ (same rule set: card activity, customer profile or fraud alert seen differently)";
            }
            if (differences.size() < maxDifferences) {
                differences.add(new Report.Difference(id, x.isEmpty() ? null : x.toString(), y.isEmpty() ? null : y.toString(), reason));
            }
        }
        return new Report.DecisionReport(transactions.size(), divergent, ruleSets, differences);
    }

    /**
     * How far each decision on {@code topic} had read its card's and customer's fraud alerts, by transaction id (every
     * decision of a transaction id is its first decision's bytes): what a rebuild gives its shadow so that it decides as
     * live did ({@link DecisionTopology.AlertsSeenBy}). A transaction without a decision there, or whose decision does
     * not say (written before v3), is decided with every alert before the cut.
     */
    DecisionTopology.AlertsSeenBy alertsSeen(String topic) {
        Deserializer<TransactionDecision> decoder = serdes.valueSerde(Topics.TRANSACTION_DECISIONS).deserializer();
        Map<String, AlertsSeen> seen = new HashMap<>();
        reader.readAll(topic, r -> {
            try {
                TransactionDecision d = decoder.deserialize(r.topic(), r.value());
                if (d.getAlertsSeen() != null) {
                    seen.putIfAbsent(d.getTransactionId(), d.getAlertsSeen());
                }
            } catch (RuntimeException unreadable) {
                // no decision to take it from
            }
        });
        return seen::get;
    }

    /**
     * The decisions on {@code topic} of the given transactions, without the fields a rerun may not reproduce, each
     * distinct decision of a transaction once.
     */
    Map<String, List<TransactionDecision>> decisions(String topic, Set<String> transactions) {
        Deserializer<TransactionDecision> decoder = serdes.valueSerde(Topics.TRANSACTION_DECISIONS).deserializer();
        Map<String, List<TransactionDecision>> byId = new LinkedHashMap<>();
        reader.readAll(topic, r -> {
            TransactionDecision d;
            try {
                d = decoder.deserialize(r.topic(), r.value());
            } catch (RuntimeException unreadable) {
                return;
            }
            if (transactions.contains(d.getTransactionId())) {
                collect(byId, d);
            }
        });
        return new TreeMap<>(byId);
    }

    /**
     * Adds one decision read from a topic. A repeated decision (the decision app is at-least-once: its first decision
     * of a transaction id is written again after a crash or for a retried request) is the same decision: kept once. A
     * different one is kept, and the comparison reports it.
     */
    static void collect(Map<String, List<TransactionDecision>> byId, TransactionDecision d) {
        List<TransactionDecision> seen = byId.computeIfAbsent(d.getTransactionId(), k -> new ArrayList<>());
        TransactionDecision c = comparable(d);
        if (!seen.contains(c)) {
            seen.add(c);
        }
    }

    /** The decider's wall clock (latency, recordedAt) is informational: a rerun cannot and need not reproduce it. */
    static TransactionDecision comparable(TransactionDecision d) {
        TransactionDecision copy = TransactionDecision.newBuilder(d).setDecisionLatencyMillis(0).build();
        copy.getEnvelope().setRecordedAt(copy.getEnvelope().getOccurredAt());
        return copy;
    }
}
