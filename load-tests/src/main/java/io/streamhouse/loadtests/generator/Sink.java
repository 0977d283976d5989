package io.streamhouse.loadtests.generator;

import java.io.IOException;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where generated events go. Implementations send in the order given (the delivery order, lateness included) and
 * say up front which event kinds they can carry, so that a run fails before sending anything rather than halfway.
 */
public interface Sink extends AutoCloseable {

    /** For messages: e.g. "kafka 127.0.0.1:9092". */
    String describe();

    /** The event kinds this sink can send. */
    Set<EventKind> supportedKinds();

    /** Throws, naming what is missing, unless every one of {@code kinds} can be sent. */
    default void requireSupports(Set<EventKind> kinds) {
        Set<EventKind> missing = kinds.isEmpty() ? EnumSet.noneOf(EventKind.class) : EnumSet.copyOf(kinds);
        missing.removeAll(supportedKinds());
        if (!missing.isEmpty()) {
            throw new UnsupportedOperationException(describe() + " cannot send " + missing + " events (it sends "
                    + supportedKinds() + "); choose those kinds only, or another target");
        }
    }

    void send(GeneratedEvent event) throws IOException;

    /** Waits until everything sent is acknowledged, at most until {@code deadlineNanos} ({@link System#nanoTime()}). */
    void flush(long deadlineNanos) throws IOException;

    @Override
    void close() throws IOException;
}
