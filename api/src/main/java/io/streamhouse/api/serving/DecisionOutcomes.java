package io.streamhouse.api.serving;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.state.HostInfo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The outcomes of several payments' decisions, from whichever instance holds each one's partition of the decision
 * app's {@code decisions-by-transaction} store (partitioned by transaction id, so a card's payments are spread over
 * the instances). That application's metadata names no hosts (see {@link CardActivityRouting}), so the holders are
 * found by asking, in batches: this instance's active replicas, then each other instance's, each asked once for all
 * the transactions still open; then standby replicas the same way, whose outcomes are marked stale. A replica that
 * holds a transaction's partition and no decision for it says the payment is not decided yet; a transaction whose
 * partition nobody answered for is marked unavailable. With one instance that is one local read per payment.
 */
public final class DecisionOutcomes {
    public static final String INTERNAL_PATH = "/internal/v1/decisions/outcomes";
    /** Transaction ids per forwarded request: keeps its URL well under the HTTP server's 4 KB request line. */
    static final int BATCH = 40;
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What one instance's replicas answered.
     *
     * @param partitions the partitions it holds (of those asked about), so an id there missing from {@code outcomes}
     *                   is not decided yet
     * @param outcomes   ALLOW, REVIEW or BLOCK by transaction id
     */
    public record Held(Set<Integer> partitions, Map<String, String> outcomes) {
        public Held {
            partitions = Set.copyOf(partitions);
            outcomes = Map.copyOf(outcomes);
        }
    }

    /** This instance's own replicas of the decisions store. */
    public interface LocalReplica {
        /** @param standbyToo false: only active replicas answer; true: standby replicas too */
        Held read(Collection<String> transactionIds, boolean standbyToo);
    }

    /**
     * One payment's outcome as found.
     *
     * @param outcome     ALLOW, REVIEW or BLOCK; null when not decided yet or {@code unavailable}
     * @param stale       a standby replica answered (the active one could not): it may lag the newest decisions
     * @param unavailable no instance holding the transaction's partition answered, so whether it was decided is unknown
     */
    public record Outcome(String outcome, boolean stale, boolean unavailable) {
        static final Outcome UNAVAILABLE = new Outcome(null, false, true);
    }

    private final LocalReplica local;
    private final Supplier<List<HostInfo>> peers;
    private final Forwarder forwarder;

    /** @param peers the other instances (not this one), empty when routing is off */
    public DecisionOutcomes(LocalReplica local, Supplier<List<HostInfo>> peers, Forwarder forwarder) {
        this.local = local;
        this.peers = peers;
        this.forwarder = forwarder;
    }

    /** Every id's outcome, in the order asked. */
    public Map<String, Outcome> find(Collection<String> transactionIds) {
        Map<String, Outcome> found = new LinkedHashMap<>();
        Set<String> open = new LinkedHashSet<>(transactionIds);
        List<HostInfo> others = open.isEmpty() ? List.of() : peers.get();
        for (boolean standbyToo : new boolean[]{false, true}) {
            take(local.read(List.copyOf(open), standbyToo), standbyToo, open, found);
            for (HostInfo peer : others) {
                if (open.isEmpty()) {
                    break;
                }
                for (List<String> batch : batches(List.copyOf(open))) {
                    ask(peer, batch, standbyToo).ifPresent(held -> take(held, standbyToo, open, found));
                }
            }
        }
        for (String id : open) {
            found.put(id, Outcome.UNAVAILABLE);
        }
        Map<String, Outcome> ordered = new LinkedHashMap<>();
        for (String id : transactionIds) {
            ordered.put(id, found.get(id));
        }
        return ordered;
    }

    private static void take(Held held, boolean stale, Set<String> open, Map<String, Outcome> found) {
        for (var it = open.iterator(); it.hasNext(); ) {
            String id = it.next();
            if (held.partitions().contains(partitionOf(id))) {
                found.put(id, new Outcome(held.outcomes().get(id), stale, false));
                it.remove();
            }
        }
    }

    private Optional<Held> ask(HostInfo peer, List<String> ids, boolean standbyToo) {
        StringBuilder path = new StringBuilder(INTERNAL_PATH).append("?standby=").append(standbyToo);
        for (String id : ids) {
            path.append("&id=").append(URLEncoder.encode(id, StandardCharsets.UTF_8));
        }
        return forwarder.get(peer, path.toString()).flatMap(DecisionOutcomes::decode);
    }

    static List<List<String>> batches(List<String> ids) {
        List<List<String>> batches = new ArrayList<>();
        for (int i = 0; i < ids.size(); i += BATCH) {
            batches.add(ids.subList(i, Math.min(ids.size(), i + BATCH)));
        }
        return batches;
    }

    /** The transaction's partition of {@code payments.transactions.decisions} and so of the store fed from it. */
    public static int partitionOf(String transactionId) {
        return Utils.toPositive(Utils.murmur2(Serdes.String().serializer().serialize(null, transactionId)))
                % Topics.TRANSACTION_DECISIONS.partitions();
    }

    public static byte[] encode(Held held) {
        try {
            return JSON.writeValueAsBytes(held);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Optional<Held> decode(byte[] body) {
        try {
            return Optional.of(JSON.readValue(body, Held.class));
        } catch (IOException e) {
            return Optional.empty(); // an answer from another build: as if it had not answered
        }
    }
}
