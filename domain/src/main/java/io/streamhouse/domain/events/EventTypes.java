package io.streamhouse.domain.events;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AuditEvent;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ReviewOutcomeRecorded;
import io.streamhouse.domain.event.RuleDefinition;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.event.VehicleTelemetry;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;

import java.util.List;

/**
 * Every top-level event type and the version of its schema this build writes. The previous versions live in
 * {@code domain/src/main/schema-history/<full name>/v<N>.avsc}; a test checks the current schema is compatible with
 * each of them and that {@link #version()} is the newest one there.
 */
public enum EventTypes {
    CUSTOMER_EVENT(CustomerEvent.class, CustomerEvent.getClassSchema(), 1),
    ORDER_EVENT(OrderEvent.class, OrderEvent.getClassSchema(), 2),
    TRANSACTION_AUTHORIZATION_REQUESTED(TransactionAuthorizationRequested.class, TransactionAuthorizationRequested.getClassSchema(), 2),
    TRANSACTION_DECISION(TransactionDecision.class, TransactionDecision.getClassSchema(), 3),
    VEHICLE_TELEMETRY(VehicleTelemetry.class, VehicleTelemetry.getClassSchema(), 1),
    PARCEL_SCANNED(ParcelScanned.class, ParcelScanned.getClassSchema(), 1),
    ALERT(Alert.class, Alert.getClassSchema(), 2),
    RULE_DEFINITION(RuleDefinition.class, RuleDefinition.getClassSchema(), 1),
    REVIEW_OUTCOME_RECORDED(ReviewOutcomeRecorded.class, ReviewOutcomeRecorded.getClassSchema(), 1),
    AUDIT_EVENT(AuditEvent.class, AuditEvent.getClassSchema(), 1);

    private final Class<? extends SpecificRecord> type;
    private final Schema schema;
    private final int version;

    EventTypes(Class<? extends SpecificRecord> type, Schema schema, int version) {
        this.type = type;
        this.schema = schema;
        this.version = version;
    }

    public Class<? extends SpecificRecord> type() {
        return type;
    }

    public Schema schema() {
        return schema;
    }

    public int version() {
        return version;
    }

    public static int versionOf(Class<? extends SpecificRecord> type) {
        for (EventTypes t : values()) {
            if (t.type.equals(type)) {
                return t.version;
            }
        }
        throw new IllegalArgumentException(type.getName() + " is not a top-level event type");
    }

    public static List<EventTypes> all() {
        return List.of(values());
    }
}
