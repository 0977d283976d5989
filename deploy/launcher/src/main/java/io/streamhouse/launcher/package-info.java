/**
 * {@code ./streamhouse up|down|status}: the whole system on one machine with embedded defaults — the platform
 * (broker, PostgreSQL, schema registry) in this JVM and its children, the apps as child JVMs, and a demo load.
 */
package io.streamhouse.launcher;
