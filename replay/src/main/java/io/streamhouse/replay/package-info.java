/**
 * Replay: rerun the live Kafka Streams topologies from offset 0 into a shadow (its own application id, topics and
 * state) up to a cut, compare the shadow with live key by key, and promote or discard it. Run as
 * {@code ./streamhouse replay …} ({@link io.streamhouse.replay.ReplayCli}); docs/replay.md.
 */
package io.streamhouse.replay;
