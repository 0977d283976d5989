package io.streamhouse.ingest.authorize;

import io.streamhouse.domain.event.TransactionDecision;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Pairs decisions read off the decisions topic with the authorize requests waiting for them, by the record key
 * (the decision topology keys every decision by its transaction id), without Kafka around it.
 * <p>
 * Every ingest instance reads every decision, but only the few it has a request waiting for need decoding: a
 * decision is matched on its key first and decoded only when a waiter is there, or later when a retried request
 * asks for it. Recent decisions are remembered as they arrived, raw (a few hundred bytes each instead of the decoded
 * record with its reasons and facts), so the memory that lets a retry find its decision stays small and cheap to
 * collect. A decision is remembered before waiters are looked up, and a waiter is registered before it looks in the
 * remembered ones, so a decision cannot slip between the two. Decisions that cannot be decoded (the decoder returns null
 * or throws) leave their waiter waiting (its deadline gives the fallback answer).
 * <p>A decision comes with the fingerprint of the request it was made for (the decisions' header); the caller compares
 * it with its own request's, since a decision for another request under the same transaction id is a conflict.
 */
final class DecisionMatcher {
    /**
     * A decision, and the fingerprint (hex) of the request it was made for; null when the record had none (written
     * before decisions carried it).
     */
    record Match(TransactionDecision decision, String requestFingerprint) {
        /** True when the decision was made for another request than the one with {@code fingerprint}. */
        boolean isFor(String fingerprint) {
            return requestFingerprint == null || requestFingerprint.equals(fingerprint);
        }
    }

    private record Arrived(byte[] value, String requestFingerprint) {
    }

    private final Map<String, CompletableFuture<Match>> waiting = new ConcurrentHashMap<>();
    private final Map<String, Arrived> recent;
    private final Function<byte[], TransactionDecision> decoder;

    /**
     * @param remember how many recent decisions to keep for retries; the oldest are forgotten first
     * @param decoder  decodes one decision's value; may throw on an unreadable one
     */
    DecisionMatcher(int remember, Function<byte[], TransactionDecision> decoder) {
        this.decoder = decoder;
        this.recent = Collections.synchronizedMap(new LinkedHashMap<>(1024, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Arrived> eldest) {
                return size() > remember;
            }
        });
    }

    /** The decision of {@code transactionId}, when it arrives or if it arrived recently. */
    CompletableFuture<Match> await(String transactionId) {
        CompletableFuture<Match> future = waiting.computeIfAbsent(transactionId, id -> new CompletableFuture<>());
        Arrived known = recent.get(transactionId);
        if (known != null) {
            decode(transactionId, known).ifPresent(d -> {
                waiting.remove(transactionId, future);
                future.complete(d);
            });
        }
        return future;
    }

    /** Stops waiting (the deadline passed, or the request was not written). */
    void forget(String transactionId, CompletableFuture<Match> future) {
        waiting.remove(transactionId, future);
    }

    /**
     * One decision as read from the topic: remembered raw, decoded and handed over only if a request waits for it.
     *
     * @return true when it was handed to a waiter
     */
    boolean arrived(String transactionId, byte[] value, String requestFingerprint) {
        if (transactionId == null || value == null) {
            return false;
        }
        Arrived arrived = new Arrived(value, requestFingerprint);
        recent.put(transactionId, arrived);
        if (!waiting.containsKey(transactionId)) {
            return false;
        }
        Optional<Match> decision = decode(transactionId, arrived);
        if (decision.isEmpty()) {
            return false;
        }
        CompletableFuture<Match> future = waiting.remove(transactionId);
        return future != null && future.complete(decision.get());
    }

    /** True while a request waits for {@code transactionId}'s decision. */
    boolean isWaiting(String transactionId) {
        return transactionId != null && waiting.containsKey(transactionId);
    }

    int waitingCount() {
        return waiting.size();
    }

    /**
     * Decoded, and only if it is the decision of the transaction its key names (never hand out another's). An
     * unreadable one is empty: the poller must survive it.
     */
    private Optional<Match> decode(String transactionId, Arrived arrived) {
        TransactionDecision d;
        try {
            d = decoder.apply(arrived.value());
        } catch (RuntimeException unreadable) {
            return Optional.empty();
        }
        return Optional.ofNullable(d).filter(decision -> transactionId.equals(decision.getTransactionId()))
                .map(decision -> new Match(decision, arrived.requestFingerprint()));
    }
}
