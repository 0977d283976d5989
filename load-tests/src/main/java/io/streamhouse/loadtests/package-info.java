/**
 * Load generation and drivers. Everything is deterministic from a seed, bounded in count and time, and sends
 * traffic to loopback addresses only.
 */
package io.streamhouse.loadtests;
