/**
 * Detection topologies as pure functions of their configuration and serdes: the apps that run them only call
 * {@code build}. Time comes from the events; the wall clock enters only through an injected {@link java.time.Clock}
 * and only for latency figures.
 */
package io.streamhouse.detection;
