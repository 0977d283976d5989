/**
 * The serving app: runs the decision topology and the projections in Kafka Streams, and answers queries from
 * their always-current state stores.
 */
package io.streamhouse.api;
