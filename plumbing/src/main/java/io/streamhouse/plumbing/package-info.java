/**
 * How the stream processors read and write the log: {@link io.streamhouse.plumbing.DeadLetters} reads a topic so that
 * what cannot be used goes to its dead-letter topic with the reason, inside the topology's exactly-once transaction;
 * {@link io.streamhouse.plumbing.DeadLetterHeaderBuilder} is the one way a dead letter's headers are written (Streams,
 * the CEP job, ingest); {@link io.streamhouse.plumbing.OutputTopics} says whether a topology writes the live topics or
 * a replay's shadow copies.
 */
package io.streamhouse.plumbing;
