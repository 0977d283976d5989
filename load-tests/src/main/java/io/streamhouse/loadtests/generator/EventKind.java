package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;

/** What the generator produces, and the catalog topic each kind goes to (key = aggregate id). */
public enum EventKind {
    TRANSACTION(Topics.TRANSACTION_REQUESTS),
    CUSTOMER(Topics.CUSTOMERS),
    ORDER(Topics.ORDERS),
    PARCEL_SCAN(Topics.PARCEL_SCANS),
    VEHICLE_TELEMETRY(Topics.VEHICLE_TELEMETRY);

    private final Topic<String, ?> topic;

    EventKind(Topic<String, ?> topic) {
        this.topic = topic;
    }

    public Topic<String, ?> topic() {
        return topic;
    }
}
