/**
 * The deterministic event generator: a small world (customers, cards, merchants, hubs, vehicles, parcels, orders)
 * that produces domain events from a seed, plants anomalies at configurable rates and records them as ground truth,
 * delivers a share of events late and out of event-time order on purpose, and sends the result to Kafka, to ingest
 * over HTTP or to a file.
 *
 * <p>Guarantees: the same {@link io.streamhouse.loadtests.generator.GeneratorConfig} gives byte-identical events and
 * ground truth (no wall clock and no unseeded randomness inside generation: the start instant is a parameter).
 * Normal traffic is built so that it never matches one of the planted patterns; {@link
 * io.streamhouse.loadtests.generator.AnomalyChecker} scans a stream for the patterns without looking at the planting
 * code, and the tests hold found == planted.
 */
package io.streamhouse.loadtests.generator;
