package io.streamhouse.domain.events;

import io.streamhouse.domain.state.CardActivity;
import org.apache.avro.Schema;

import java.util.List;

/**
 * Schemas of state that processors keep in stores and so write to changelog topics, or in Flink keyed state and so in
 * checkpoints and savepoints. They are not events, but a restore reads old state with the current schema, so they are
 * governed like events: released versions
 * in {@code src/main/schema-history}, checked by the same compatibility test.
 */
public enum StateSchemas {
    CARD_ACTIVITY(CardActivity.getClassSchema(), 2),
    CUSTOMER_PROFILE(io.streamhouse.domain.state.CustomerProfile.getClassSchema(), 2),
    PARCEL_TRACKING(io.streamhouse.domain.state.ParcelTracking.getClassSchema(), 1),
    VEHICLE_HEALTH(io.streamhouse.domain.state.VehicleHealth.getClassSchema(), 1),
    SUBJECT_ALERTS(io.streamhouse.domain.state.SubjectAlerts.getClassSchema(), 1),
    CUSTOMER_STATE(io.streamhouse.domain.state.CustomerState.getClassSchema(), 3),
    /** Flink keyed state of the CEP library's operators (the facts their NFAs buffer) and of the reconciliation. */
    STAMPED_FACT(io.streamhouse.domain.state.StampedFact.getClassSchema(), 1),
    /** Flink keyed state of the late-event reconciliation after each CEP library pattern. */
    RECONCILED_SUBJECT(io.streamhouse.domain.state.ReconciledSubject.getClassSchema(), 1),
    /** The decision topology's decided transactions: its internal decided topic and its first-decision store. */
    DECIDED_TRANSACTION(io.streamhouse.domain.state.DecidedTransaction.getClassSchema(), 1),
    /** The decision topology's global store of each card's and customer's recent fraud alert records. */
    FRAUD_ALERT_HISTORY(io.streamhouse.domain.state.FraudAlertHistory.getClassSchema(), 1);

    private final Schema schema;
    private final int version;

    StateSchemas(Schema schema, int version) {
        this.schema = schema;
        this.version = version;
    }

    public Schema schema() {
        return schema;
    }

    public int version() {
        return version;
    }

    public static List<StateSchemas> all() {
        return List.of(values());
    }
}
