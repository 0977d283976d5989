/**
 * The lake: every landed topic as an Iceberg table, written by the Iceberg Kafka Connect sink. The Iceberg-side
 * classes ({@link io.streamhouse.lake.LakeSchemas}, {@link io.streamhouse.lake.LakeTables},
 * {@link io.streamhouse.lake.LakeTablesMain}) run only in child JVMs; {@link io.streamhouse.lake.LakeTablesProcess}
 * is JDK-only and safe on any classpath. The lake's names are in the topic catalog
 * ({@link io.streamhouse.domain.topic.LakeNames}).
 */
package io.streamhouse.lake;
