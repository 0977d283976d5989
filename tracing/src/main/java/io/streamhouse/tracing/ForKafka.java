package io.streamhouse.tracing;

import jakarta.inject.Qualifier;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The {@code OpenTelemetry} the apps' Kafka producers, consumers and topologies are instrumented with: the app's own,
 * or the no-op instance when tracing is off ({@link KafkaTelemetryProducer}).
 */
@Qualifier
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.TYPE})
public @interface ForKafka {
}
