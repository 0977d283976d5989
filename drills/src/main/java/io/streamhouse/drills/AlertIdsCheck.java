package io.streamhouse.drills;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.topic.Topic;
import io.streamhouse.domain.topic.Topics;
import org.apache.kafka.common.serialization.Deserializer;

import java.util.ArrayList;
import java.util.List;

/** No alert id on the alert topics twice: the CEP job's exactly-once sinks held across the fault. */
final class AlertIdsCheck implements Check<AlertIdsCheck.Found> {
    /** {@code repeated}: the ids written more than once, at most 20 of them (the failure counts them all). */
    record Found(long read, List<String> repeated) {
    }

    @Override
    public CheckResult<Found> run(CheckContext on) {
        List<String> alertIds = new ArrayList<>();
        for (Topic<String, Alert> topic : List.of(Topics.FRAUD_ALERTS, Topics.PARCEL_ALERTS, Topics.MAINTENANCE_ALERTS)) {
            Deserializer<Alert> decoder = on.serdes().valueSerde(topic).deserializer();
            on.reader().readAll(topic.name(), r -> {
                try {
                    alertIds.add(decoder.deserialize(r.topic(), r.value()).getAlertId());
                } catch (RuntimeException unreadable) {
                    // not an alert this check can judge; the topic's own consumers dead-letter it
                }
            });
        }
        List<String> repeated = DrillChecks.repeated(alertIds);
        return CheckResult.failedIf(!repeated.isEmpty(), new Found(alertIds.size(), repeated.size() > 20 ? repeated.subList(0, 20) : repeated),
                repeated.size() + " alert ids written more than once");
    }
}
