package io.streamhouse.loadtests.generator;

import java.util.List;

/**
 * The result of one run: the events in delivery order and the ground truth — planted anomalies and late events.
 * Held in memory (about 1-2 KB per event), which bounds a run to what the heap holds; the CLI's default heap takes a
 * few hundred thousand events, more needs a bigger {@code -Xmx}.
 */
public record Generation(GeneratorConfig config, List<GeneratedEvent> events, List<Anomaly> anomalies,
                         List<LateEvent> lateEvents, List<CardInfo> cards, List<CustomerInfo> customers) {
    public Generation {
        events = List.copyOf(events);
        anomalies = List.copyOf(anomalies);
        lateEvents = List.copyOf(lateEvents);
        cards = List.copyOf(cards);
        customers = List.copyOf(customers);
    }
}
