/**
 * The Streamhouse platform on one machine without Docker: {@link io.streamhouse.platform.EmbeddedPlatform} starts a
 * Kafka broker (child JVM), PostgreSQL with logical decoding ({@link io.streamhouse.platform.ZonkyPostgres} or an
 * {@link io.streamhouse.platform.ExternalPostgres}) and, later, the schema registry; for the launcher
 * ({@link io.streamhouse.platform.PlatformOptions#forLauncher}) and for tests
 * ({@link io.streamhouse.platform.SharedPlatform}, {@link io.streamhouse.platform.junit.StreamhousePlatformExtension}).
 */
package io.streamhouse.platform;
