/**
 * A Flink session cluster on this machine from Flink's own entry points (one JobManager, TaskManagers, each a
 * supervised child JVM on a distribution-like classpath) and the JobManager's REST API that jobs are submitted,
 * watched and stopped through (docs/flink-cluster.md).
 */
package io.streamhouse.flinkcluster;
