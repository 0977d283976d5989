/**
 * OpenTelemetry across Kafka: the trace context travels in each record's W3C {@code traceparent} header, written by
 * KafkaTelemetry-wrapped producers and made current again by whoever processes the record.
 */
package io.streamhouse.tracing;
