package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.state.StampedFact;
import org.apache.flink.api.connector.sink2.Sink;

import java.util.Objects;

/**
 * Where the job writes: alerts (one sink, the topic follows the category), dead letters, late events; and, optionally,
 * the facts the CEP library's operators got behind their watermark ({@code lateFacts}, engine {@code cep}: their events
 * are on the late topics already; without this sink they are only counted).
 */
public record CepSinks(Sink<Alert> alerts, Sink<DeadLetter> deadLetters, Sink<LateRecord> lateEvents,
                       Sink<StampedFact> lateFacts) {
    public CepSinks(Sink<Alert> alerts, Sink<DeadLetter> deadLetters, Sink<LateRecord> lateEvents) {
        this(alerts, deadLetters, lateEvents, null);
    }

    public CepSinks {
        Objects.requireNonNull(alerts, "alerts");
        Objects.requireNonNull(deadLetters, "deadLetters");
        Objects.requireNonNull(lateEvents, "lateEvents");
    }
}
