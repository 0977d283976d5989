package io.streamhouse.control;

import java.time.Instant;
import java.util.Optional;

/**
 * One component's state as {@code ./streamhouse status} shows it: an immutable snapshot.
 *
 * @param pid      of the current (or last) child process, 0 before the first launch
 * @param restarts how many times the supervisor started it again since the first start (kills, crashes, restarts)
 * @param lastExit how its last unexpected death ended, if it ever died
 * @param endpoint where it answers (URL or bootstrap), empty before it was first ready
 * @param since    when it entered {@code state}
 */
public record ChildStatus(String name, ChildState state, long pid, int restarts, Optional<ExitInfo> lastExit,
                          String endpoint, Instant since) {
}
