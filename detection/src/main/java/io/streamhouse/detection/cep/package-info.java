/**
 * The Flink CEP job: sequences in event time over the domain topics (card testing, impossible travel, account
 * takeover, parcel SLA breach, engine overheating, maintenance due), alerts to {@code alerts.*}. {@link
 * io.streamhouse.detection.cep.CepJob#build} wires it from sources and sinks it is given; the pattern logic itself is
 * plain Java ({@link io.streamhouse.detection.cep.SubjectPattern} implementations) run by one keyed matcher per pattern
 * ({@link io.streamhouse.detection.cep.PatternMatcher}) whose thresholds come from broadcast state, or, with engine
 * {@code cep}, for the patterns Flink's CEP library carries so far, by a compiled {@code Pattern}
 * ({@link io.streamhouse.detection.cep.LibraryPatterns}) over facts stamped with the thresholds in force.
 *
 * <p>Flink is an optional dependency of this module: only {@code deploy/flink-job} and the tests put it on a
 * classpath, and never together with Kafka Streams' RocksDB (both define {@code org.rocksdb}).
 */
package io.streamhouse.detection.cep;
