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
 */
final class DecisionMatcher {
    private final Map<String, CompletableFuture<TransactionDecision>> waiting = new ConcurrentHashMap<>();
    private final Map<String, byte[]> recent;
    private final Function<byte[], TransactionDecision> decoder;

    /**
     * @param remember how many recent decisions to keep for retries; the oldest are forgotten first
     * @param decoder  decodes one decision's value; may throw on an unreadable one
     */
    DecisionMatcher(int remember, Function<byte[], TransactionDecision> decoder) {
        this.decoder = decoder;
        this.recent = Collections.synchronizedMap(new LinkedHashMap<>(1024, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, byte[]> eldest) {
                return size() > remember;
            }
        });
    }

    /** The decision of {@code transactionId}, when it arrives or if it arrived recently. */
    CompletableFuture<TransactionDecision> await(String transactionId) {
        CompletableFuture<TransactionDecision> future = waiting.computeIfAbsent(transactionId, id -> new CompletableFuture<>());
        byte[] known = recent.get(transactionId);
        if (known != null) {
            decode(transactionId, known).ifPresent(d -> {
                waiting.remove(transactionId, future);
                future.complete(d);
            });
        }
        return future;
    }

    /** Stops waiting (the deadline passed, or the request was not written). */
    void forget(String transactionId, CompletableFuture<TransactionDecision> future) {
        waiting.remove(transactionId, future);
    }

    /**
     * One decision as read from the topic: remembered raw, decoded and handed over only if a request waits for it.
     *
     * @return true when it was handed to a waiter
     */
    boolean arrived(String transactionId, byte[] value) {
        if (transactionId == null || value == null) {
            return false;
        }
        recent.put(transactionId, value);
        if (!waiting.containsKey(transactionId)) {
            return false;
        }
        Optional<TransactionDecision> decision = decode(transactionId, value);
        if (decision.isEmpty()) {
            return false;
        }
        CompletableFuture<TransactionDecision> future = waiting.remove(transactionId);
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
    private Optional<TransactionDecision> decode(String transactionId, byte[] value) {
        TransactionDecision d;
        try {
            d = decoder.apply(value);
        } catch (RuntimeException unreadable) {
            return Optional.empty();
        }
        return Optional.ofNullable(d).filter(decision -> transactionId.equals(decision.getTransactionId()));
    }
}
