package io.streamhouse.api.serving;

import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A card's payments' outcomes from whichever instance holds each decision: asked in batches, active replicas before
 * standbys (marked stale), "not decided" only from a holder, "unavailable" when no holder answered.
 */
class DecisionOutcomesTest {
    private static final HostInfo B = new HostInfo("10.0.0.2", 8082);
    private static final HostInfo C = new HostInfo("10.0.0.3", 8082);

    /** Transaction ids, one per partition of the decisions topic (0 to 5, in that order). */
    private static final List<String> ONE_PER_PARTITION = IntStream.range(0, 6).mapToObj(p -> IntStream.iterate(0, i -> i + 1)
            .mapToObj(i -> "tx-" + i).filter(id -> DecisionOutcomes.partitionOf(id) == p).findFirst().orElseThrow()).toList();

    /** Replicas holding these partitions, each decision's outcome ALLOW except those named. */
    private static DecisionOutcomes.Held holding(Collection<String> asked, Set<Integer> partitions, Map<String, String> outcomes) {
        Map<String, String> found = new HashMap<>();
        for (String id : asked) {
            if (partitions.contains(DecisionOutcomes.partitionOf(id)) && outcomes.containsKey(id)) {
                found.put(id, outcomes.get(id));
            }
        }
        return new DecisionOutcomes.Held(new TreeSet<>(partitions), found);
    }

    private static List<String> ids(String query) {
        List<String> ids = new ArrayList<>();
        for (String pair : query.substring(query.indexOf('?') + 1).split("&")) {
            if (pair.startsWith("id=")) {
                ids.add(pair.substring(3));
            }
        }
        return ids;
    }

    @Test
    void outcomesHeldElsewhereAreFetchedOneBatchPerInstanceAndAHolderWithoutADecisionMeansNotDecidedYet() {
        Map<String, String> decided = new HashMap<>();
        for (int i = 0; i < 5; i++) {
            decided.put(ONE_PER_PARTITION.get(i), "ALLOW");
        }
        decided.put(ONE_PER_PARTITION.get(1), "REVIEW");
        List<String> asked = new ArrayList<>();
        DecisionOutcomes outcomes = new DecisionOutcomes(
                (ids, standbyToo) -> standbyToo ? holding(ids, Set.of(), decided) : holding(ids, Set.of(0, 1), decided),
                () -> List.of(B, C), (host, path) -> {
            asked.add(host.host() + " " + path.substring(0, path.indexOf('?')) + " " + ids(path)
                    + (path.contains("standby=true") ? " standby" : ""));
            return Optional.of(DecisionOutcomes.encode(host.equals(B) ? holding(ids(path), Set.of(2, 3), decided)
                    : holding(ids(path), Set.of(4, 5), decided)));
        });

        var found = outcomes.find(ONE_PER_PARTITION);

        assertThat(found.values()).containsExactly(new DecisionOutcomes.Outcome("ALLOW", false, false),
                new DecisionOutcomes.Outcome("REVIEW", false, false), new DecisionOutcomes.Outcome("ALLOW", false, false),
                new DecisionOutcomes.Outcome("ALLOW", false, false), new DecisionOutcomes.Outcome("ALLOW", false, false),
                new DecisionOutcomes.Outcome(null, false, false));
        assertThat(found.keySet()).containsExactlyElementsOf(ONE_PER_PARTITION);
        assertThat(asked).as("one request per other instance, for what is still open").containsExactly(
                "10.0.0.2 " + DecisionOutcomes.INTERNAL_PATH + " " + ONE_PER_PARTITION.subList(2, 6),
                "10.0.0.3 " + DecisionOutcomes.INTERNAL_PATH + " " + ONE_PER_PARTITION.subList(4, 6));
    }

    @Test
    void withNoActiveHolderAStandbyAnswersMarkedStaleAndWithNoneTheOutcomeIsUnavailable() {
        Map<String, String> decided = new HashMap<>();
        ONE_PER_PARTITION.forEach(id -> decided.put(id, "BLOCK"));
        List<String> asked = new ArrayList<>();
        DecisionOutcomes outcomes = new DecisionOutcomes(
                (ids, standbyToo) -> holding(ids, standbyToo ? Set.of(0, 1) : Set.of(0), decided),
                () -> List.of(B), (host, path) -> {
            asked.add((path.contains("standby=true") ? "standby " : "active ") + ids(path).size());
            return path.contains("standby=true") ? Optional.of(DecisionOutcomes.encode(holding(ids(path), Set.of(2, 3), decided)))
                    : Optional.empty(); // B's active replicas do not answer (it is going away)
        });

        var found = outcomes.find(ONE_PER_PARTITION);

        assertThat(found.values()).containsExactly(new DecisionOutcomes.Outcome("BLOCK", false, false),
                new DecisionOutcomes.Outcome("BLOCK", true, false), new DecisionOutcomes.Outcome("BLOCK", true, false),
                new DecisionOutcomes.Outcome("BLOCK", true, false), new DecisionOutcomes.Outcome(null, false, true),
                new DecisionOutcomes.Outcome(null, false, true));
        assertThat(asked).containsExactly("active 5", "standby 4");
    }

    @Test
    void manyPaymentsGoInBatchesThatKeepTheRequestLineShortAndNoneIsAskedForWithNothingOpen() {
        List<String> many = IntStream.range(0, 100).mapToObj(i -> "card-testing-tx-" + i).toList();
        List<Integer> batchSizes = new ArrayList<>();
        new DecisionOutcomes((ids, standbyToo) -> holding(ids, Set.of(), Map.of()), () -> List.of(B), (host, path) -> {
            batchSizes.add(ids(path).size());
            assertThat(path.length()).isLessThan(2048);
            return Optional.of(DecisionOutcomes.encode(holding(ids(path), Set.of(0, 1, 2, 3, 4, 5), Map.of())));
        }).find(many);
        assertThat(batchSizes).containsExactly(DecisionOutcomes.BATCH, DecisionOutcomes.BATCH, 100 - 2 * DecisionOutcomes.BATCH);

        List<String> none = new ArrayList<>();
        var local = new DecisionOutcomes((ids, standbyToo) -> holding(ids, Set.of(0, 1, 2, 3, 4, 5), Map.of()),
                () -> List.of(B), (host, path) -> {
            none.add(path);
            return Optional.empty();
        }).find(ONE_PER_PARTITION);
        assertThat(local.values()).allSatisfy(o -> assertThat(o).isEqualTo(new DecisionOutcomes.Outcome(null, false, false)));
        assertThat(none).as("all held here: no other instance asked").isEmpty();
    }
}
