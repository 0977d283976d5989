/** Vehicles' MQTT telemetry onto the log: at least once, invalid payloads to the dead-letter topic, nothing dropped. */
package io.streamhouse.ingest.mqtt;
