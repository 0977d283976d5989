package io.streamhouse.drills;

import java.util.List;

/**
 * A cluster drill's own figures, beside the {@link RecoveryWatch.Recovery} every drill reports: what was faulted and
 * why that one, what "serving again" meant, where the work went, and when the killed member was whole again. Times
 * are from the fault; {@code null}: not seen within the recovery timeout (or not asked for this scenario).
 *
 * @param rejoinedAfterMs  the killed member back in its place: the broker in every ISR of the decisions topic, the
 *                         TaskManager or worker running again in a new process
 * @param checkpointAtKill kill-taskmanager: the latest checkpoint the job had completed just before the kill
 * @param restoredFrom     kill-taskmanager: the checkpoint the job restored from after it
 */
record ClusterRecovery(String component, String chosenBecause, String servingAgainMeans, List<String> placementBefore,
                       List<String> placementAfter, Long rejoinedAfterMs, String rejoinedMeans, Long checkpointAtKill,
                       Long restoredFrom) {
    ClusterRecovery {
        placementBefore = placementBefore == null ? List.of() : List.copyOf(placementBefore);
        placementAfter = placementAfter == null ? List.of() : List.copyOf(placementAfter);
    }
}
