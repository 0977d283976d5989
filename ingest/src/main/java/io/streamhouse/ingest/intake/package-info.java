/**
 * The one way events enter the log from any ingest path: de-duplication by event id within a window per instance,
 * the in-flight bound behind 429, and waiting for the broker's acknowledgement.
 */
package io.streamhouse.ingest.intake;
