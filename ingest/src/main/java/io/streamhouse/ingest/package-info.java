/**
 * The ingest gateway: validated HTTP endpoints and the MQTT telemetry bridge that put events on the log as Avro
 * through the schema registry. Bad HTTP input is refused with {@code application/problem+json} naming every bad
 * field; bad MQTT payloads go to the dead-letter topic with the reason. Nothing accepted is lost (a 202, or an MQTT
 * acknowledgement, is given only after the broker acknowledged the write with acks=all), and a retry that reaches
 * the same instance within the de-duplication window is not written twice ({@link io.streamhouse.ingest.intake}).
 */
package io.streamhouse.ingest;
