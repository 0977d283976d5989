/**
 * Read models kept current from the log by Kafka Streams, as pure topology builders. Store names are constants
 * shared by the serving code (api) and the tests.
 */
package io.streamhouse.projections;
