/**
 * The lake: every landed topic as an Iceberg table, written by the Iceberg Kafka Connect sink. The Iceberg-side
 * classes ({@link io.streamhouse.lake.LakeSchemas}, {@link io.streamhouse.lake.LakeTables},
 * {@link io.streamhouse.lake.LakeTablesMain}) run only in child JVMs; {@link io.streamhouse.lake.LakeNames} and
 * {@link io.streamhouse.lake.LakeTablesProcess} are JDK-only and safe on any classpath.
 */
package io.streamhouse.lake;
