/**
 * The Flink CEP job: sequences in event time over the domain topics (card testing, impossible travel, account
 * takeover, parcel SLA breach, engine overheating, maintenance due), alerts to {@code alerts.*}. {@link
 * io.streamhouse.detection.cep.CepJob#build} wires it from sources and sinks it is given; the pattern logic itself is
 * matched by Flink's CEP library: per pattern a compiled {@code Pattern} ({@link io.streamhouse.detection.cep.LibraryPatterns})
 * over facts stamped with the thresholds in force (from broadcast state), and after it a reconciliation of late events
 * ({@link io.streamhouse.detection.cep.LateReconciler}) by the pattern's pure function
 * ({@link io.streamhouse.detection.cep.SubjectPattern} implementations).
 *
 * <p>Flink is an optional dependency of this module: only {@code deploy/flink-job} and the tests put it on a
 * classpath, and never together with Kafka Streams' RocksDB (both define {@code org.rocksdb}).
 */
package io.streamhouse.detection.cep;
