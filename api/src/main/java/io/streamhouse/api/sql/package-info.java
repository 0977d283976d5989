/**
 * Snapshot SQL: {@code POST /v1/sql} forwards one read-only query to the lake's query service (deploy/lake-query, a
 * Flink batch engine in its own JVM) and answers with its rows, column types and what they were read at. No Flink,
 * Iceberg or Hadoop class is on this app's classpath: the engine is reached over HTTP on 127.0.0.1.
 */
package io.streamhouse.api.sql;
