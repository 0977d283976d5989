/**
 * The contracts every Streamhouse process shares: Avro events (generated into {@code io.streamhouse.domain.event}),
 * the topic catalog ({@code topic}), the registry wire format ({@code wire}) and pure decision logic ({@code decision}).
 * Nothing here depends on a framework or reads a clock: time comes from the events.
 */
package io.streamhouse.domain;
