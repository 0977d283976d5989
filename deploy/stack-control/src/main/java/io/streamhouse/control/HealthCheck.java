package io.streamhouse.control;

import java.util.Locale;
import java.util.Objects;

/**
 * What a look inside a running component found, beyond its process being alive: a Flink job restarting in its
 * MiniCluster, a Kafka Connect task FAILED in a live worker. {@code ./streamhouse status} prints {@link #line()} and
 * counts the verdict in its exit code, as it counts the components' states.
 *
 * @param name      what was looked at ({@code cep job}, {@code connect lake}, ...)
 * @param component the supervised component it lives in
 * @param line      one line for a person, the verdict's reason first
 */
public record HealthCheck(String name, String component, Verdict verdict, String line) {
    public HealthCheck {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(component, "component");
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(line, "line");
    }

    /** From best to worst; {@link #UNKNOWN} (the component could not be asked) leaves the exit code to its state. */
    public enum Verdict {
        /** Working as it should. */
        OK,
        /** Not asked or no answer: the component's own state says more. */
        UNKNOWN,
        /** Not working right now, but no sign that it will not recover: starting, restarting once. */
        DEGRADED,
        /** Failed, or failing again and again: it needs a person. */
        FAILING;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
