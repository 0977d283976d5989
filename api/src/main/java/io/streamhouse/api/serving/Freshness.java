package io.streamhouse.api.serving;

import java.time.Instant;

/**
 * How fresh an answer is.
 *
 * @param lastEventAt event time of the newest event applied to this key's state (the version's timestamp)
 * @param lagRecords  records of the store's input partition not yet applied (null when unknown, e.g. before the
 *                    first fetch): for an active task the consumer's lag behind the log head (last stable offset),
 *                    for a standby its changelog lag behind the active task
 * @param lagAgeMs    how old the {@code lagRecords} figure is, in ms: lag is read from the consumer's metrics at most
 *                    every {@value PartitionLags#TTL_MS} ms per partition and reused meanwhile, so that a lookup does
 *                    not pay for it (null when the lag is unknown)
 * @param stale       true when answered from a standby replica or a task not yet RUNNING (during a rebalance or
 *                    while the owning instance is gone)
 * @param servedBy    host:port of the instance whose store answered
 */
public record Freshness(Instant lastEventAt, Long lagRecords, Long lagAgeMs, boolean stale, String servedBy) {
}
