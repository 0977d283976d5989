package io.streamhouse.replay;

import java.util.List;
import java.util.Map;

/** What a rebuild found, as printed and as the {@code --json} summary. */
final class Report {
    /** One key (or transaction id) whose two sides differ; a side that lacks it is null. */
    record Difference(String key, String live, String shadow, String reason) {
    }

    record PartitionDigest(int partition, int liveKeys, int shadowKeys, String liveDigest, String shadowDigest) {
        boolean equal() {
            return liveKeys == shadowKeys && liveDigest.equals(shadowDigest);
        }
    }

    /** @param differences at most {@code --max-diffs} of the {@code divergentKeys} */
    record StoreReport(String store, List<PartitionDigest> partitions, long keys, long divergentKeys, List<Difference> differences) {
    }

    record DecisionReport(long transactions, long divergent, long differentRuleSetVersion, List<Difference> differences) {
    }

    /**
     * The CEP job's effective alerts (revision chains resolved: not superseded, not withdrawn), by occurrence and alert
     * id, of those settled at the cut (see {@link AlertVerify}).
     *
     * @param liveCompared       live's effective alerts in the comparison
     * @param shadowCompared     the shadow's effective alerts in the comparison
     * @param liveNotCompared    live's alert ids not settled at the cut: beyond the settled horizon (live's watermark is
     *                           often past it, which is only a lower bound), or caused by input after the cut
     * @param shadowNotCompared  the shadow's alert ids beyond the settled horizon (live may not have evaluated them yet)
     * @param horizons           the settled horizon per alert type
     */
    record AlertReport(long liveCompared, long shadowCompared, long onlyInLive, long onlyInShadow, long differing,
                       long divergent, long liveNotCompared, long shadowNotCompared, Map<String, String> horizons,
                       List<Difference> differences) {
    }

    /** @param alerts the CEP job's comparison (target cep only); stores are then empty and decisions null */
    /**
     * @param livePastCut input partitions on which live had committed beyond the cut by the time its stores were read
     *                    (partition → live's offset): input still flowing. Keys those later records touched differ
     *                    from the shadow for that reason alone; empty when live was exactly at the cut.
     */
    record TargetReport(String target, String liveApplicationId, String shadowApplicationId, long events, long droppedPastCut,
                        long durationMs, double eventsPerSecond, Map<String, Long> cut, List<StoreReport> stores,
                        DecisionReport decisions, AlertReport alerts, long divergences, Map<String, Long> livePastCut) {
        TargetReport {
            livePastCut = livePastCut == null ? Map.of() : Map.copyOf(livePastCut);
        }

        TargetReport(String target, String liveApplicationId, String shadowApplicationId, long events, long droppedPastCut,
                     long durationMs, double eventsPerSecond, Map<String, Long> cut, List<StoreReport> stores,
                     DecisionReport decisions, AlertReport alerts, long divergences) {
            this(target, liveApplicationId, shadowApplicationId, events, droppedPastCut, durationMs, eventsPerSecond, cut,
                    stores, decisions, alerts, divergences, Map.of());
        }
    }

    /** @param result EQUAL (exit 0) or DIVERGENT (exit 1) */
    record Summary(String shadowId, String result, long divergences, long durationMs, List<TargetReport> targets) {
    }

    private Report() {
    }
}
