/**
 * A Kafka broker for development and tests, run in a child JVM so that no Kafka server jar or Scala reaches an
 * application classpath. {@link io.streamhouse.broker.BrokerProcess} (parent side, JDK only) starts
 * {@link io.streamhouse.broker.BrokerMain} (child side) and guarantees that the child does not outlive the parent.
 */
package io.streamhouse.broker;
