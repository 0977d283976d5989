/** JUnit Jupiter support: one shared {@link io.streamhouse.platform.EmbeddedPlatform} per test JVM. */
package io.streamhouse.platform.junit;
