package io.streamhouse.replay;

import io.streamhouse.plumbing.OutputTopics;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import org.apache.avro.specific.SpecificData;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What one target needs from the lake and the log, gathered (and gaps refused) before anything is created. */
record BackfillPlan(Target target, String liveId, String app, Cut liveCut, Cut stitchCut, List<Topic<String, ?>> topics,
                    LakeRows.Snapshotted liveDecisions, Cut liveDecisionsCut) {

    /** Takes the target's cut once live has reached it, reads its tables (each once) and refuses any gap. */
    static BackfillPlan take(Target target, String liveId, String app, Admin admin, LakeRows lake,
                             Map<String, LakeRows.Snapshotted> tables, Map<String, Long> snapshots, Instant asOf,
                             long liveTimeoutSeconds, String liveDecisionsTopic, boolean liveDecisionsPrefixed) throws Exception {
        Cut liveCut = Cut.take(admin, target.inputTopics());
        if (!Groups.awaitCaughtUp(admin, liveId, target.committedPart(liveCut, OutputTopics.LIVE), target.repartitionTopics(liveId), Duration.ofSeconds(liveTimeoutSeconds),
                left -> { }, () -> false)) {
            throw new Endpoints.EnvironmentException("the live application " + liveId + " has not reached the cut within "
                    + liveTimeoutSeconds + " s (--live-timeout): is it running and keeping up?");
        }
        List<Topic<String, ?>> topics = new ArrayList<>(target.inputs());
        topics.addAll(target.globalInputs());
        // The global tables are read whole: stitched to their ends now, which live has read too (it reads them as they come).
        Cut globals = Cut.take(admin, target.globalInputs().stream().map(Topic::name).toList());
        Map<TopicPartition, Long> offsets = new HashMap<>(liveCut.offsets()), earliest = new HashMap<>(liveCut.earliest());
        offsets.putAll(globals.offsets());
        earliest.putAll(globals.earliest());
        Cut stitchCut = new Cut(offsets, earliest);
        for (Topic<String, ?> topic : topics) {
            LakeRows.Snapshotted rows = tables.computeIfAbsent(topic.name(), t -> lake.read(t, SpecificData.get().getSchema(topic.valueType()), asOf));
            snapshots.put(rows.table(), rows.snapshotId() == null ? -1L : rows.snapshotId());
            requireNoGap(topic, rows, stitchCut);
        }
        LakeRows.Snapshotted liveDecisions = null;
        Cut liveDecisionsCut = null;
        if (target == Target.DECISIONS) {
            Cut rules = Cut.take(admin, List.of(Topics.RULES.name()));
            rules.earliest().forEach((tp, start) -> {
                if (start > 0) {
                    throw new ReplayCli.BadInput(tp + " starts at offset " + start + ": the rules are read whole from the log (a "
                            + "compacted topic keeps every rule's latest version from offset 0), and records were deleted from it");
                }
            });
            // Live's decisions, compared by transaction id: where their log no longer reaches back, from the lake.
            liveDecisionsCut = Cut.take(admin, List.of(liveDecisionsTopic));
            if (liveDecisionsCut.earliest().values().stream().anyMatch(start -> start > 0)) {
                if (liveDecisionsPrefixed) {
                    throw new ReplayCli.BadInput(liveDecisionsTopic + " no longer starts at offset 0, and only the live topics land "
                            + "in the lake: live's decisions cannot all be read");
                }
                liveDecisions = tables.computeIfAbsent(Topics.TRANSACTION_DECISIONS.name(),
                        t -> lake.read(t, SpecificData.get().getSchema(Topics.TRANSACTION_DECISIONS.valueType()), asOf));
                snapshots.put(liveDecisions.table(), liveDecisions.snapshotId() == null ? -1L : liveDecisions.snapshotId());
                requireNoGap(Topics.TRANSACTION_DECISIONS, liveDecisions, liveDecisionsCut);
            }
        }
        return new BackfillPlan(target, liveId, app, liveCut, stitchCut, topics, liveDecisions, liveDecisionsCut);
    }

    /** A partition whose log starts after the snapshot's next offset lost records nobody holds: refuse, name it. */
    static void requireNoGap(Topic<String, ?> topic, LakeRows.Snapshotted rows, Cut cut) {
        for (int p = 0; p < topic.partitions(); p++) {
            TopicPartition tp = new TopicPartition(topic.name(), p);
            long logStart = cut.earliest().getOrDefault(tp, 0L);
            long next = next(rows, p, cut.offsets().getOrDefault(tp, 0L));
            if (logStart > 0 && rows.snapshotId() == null) {
                throw new ReplayCli.BadInput(rows.missing() + ", and the log of " + tp + " starts at offset " + logStart
                        + ": offsets 0.." + (logStart - 1) + " are in neither");
            }
            if (logStart > next) {
                throw new ReplayCli.BadInput(String.format(Locale.ROOT, "gap in %s: the log starts at offset %d, but the lake's snapshot %d "
                        + "of %s holds offsets only to %d: offsets %d..%d are in neither (take a later snapshot, or the records are lost)",
                        tp, logStart, rows.snapshotId(), rows.table(), next - 1, next, logStart - 1));
            }
        }
    }

    /** The first offset the log has to supply: one past the last lake row before the cut. */
    static long next(LakeRows.Snapshotted rows, int partition, long cut) {
        long last = -1;
        for (LakeRows.Row r : rows.byPartition().getOrDefault(partition, List.of())) {
            if (r.offset() < cut) {
                last = r.offset();
            }
        }
        return last + 1;
    }
}
