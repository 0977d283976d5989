package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import org.apache.flink.api.connector.sink2.Sink;

import java.util.Objects;

/** Where the job writes: alerts (one sink, the topic follows the category), dead letters, late events. */
public record CepSinks(Sink<Alert> alerts, Sink<DeadLetter> deadLetters, Sink<LateRecord> lateEvents) {
    public CepSinks {
        Objects.requireNonNull(alerts, "alerts");
        Objects.requireNonNull(deadLetters, "deadLetters");
        Objects.requireNonNull(lateEvents, "lateEvents");
    }
}
