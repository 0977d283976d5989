/**
 * The ingest gateway: validated HTTP endpoints that put events on the log as Avro through the schema registry.
 * Bad input is refused with {@code application/problem+json} naming every bad field; nothing accepted is lost
 * (a 202 is answered only after the broker acknowledged the write with acks=all).
 */
package io.streamhouse.ingest;
