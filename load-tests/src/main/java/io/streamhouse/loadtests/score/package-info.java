/**
 * {@code ./streamhouse score}: scores a running stack's detection against the ground truth the seeded generator wrote.
 * Reads the alert topics with Kafka's own read_committed consumer (what a user of the topics sees), keeps the alerts a
 * reader trusts (revision chains resolved, withdrawals dropped) that the generation caused, and compares them with the
 * planted anomalies through {@link io.streamhouse.loadtests.generator.AnomalyChecker#score}, pattern by pattern.
 */
package io.streamhouse.loadtests.score;
