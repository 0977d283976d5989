package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.AlertStatus;
import io.streamhouse.domain.event.AlertSubject;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Severity;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.detection.PatternSettings;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds the {@link Alert} of a finding. Its id is derived from the finding's identity and its times are the finding's
 * event times, so replaying the same events yields byte-identical alerts (no clock involved).
 */
public final class Alerts {
    public static final String SOURCE = "cep-job";
    /** Attribute naming the alert this one revises (same anchor, other events or outcome). */
    public static final String SUPERSEDES = "supersedes";
    public static final String ANCHOR = "anchorEventId";

    public static String alertIdOf(Finding f) {
        return Envelopes.derivedEventId("cep-alert", f.identity());
    }

    /**
     * The id of an occurrence's alert written again after this id was written and retired: a late event took the
     * chain away from the occurrence and another brought it back (a hot and a cool reading at one millisecond, the
     * hot one first). Derived from the occurrence and the alert it supersedes, so each return has an id of its own and
     * an alert id is still written once.
     */
    public static String reissuedIdOf(Finding f, String supersedes) {
        return Envelopes.derivedEventId("cep-alert-reissue", f.identity() + "|" + (supersedes == null ? "" : supersedes));
    }

    /** {@link #of} under the id {@link #reissuedIdOf}: the occurrence's alert, again, superseding {@code supersedes}. */
    public static Alert reissue(Finding f, String patternId, int patternVersion, String supersedes) {
        Alert a = of(f, patternId, patternVersion, supersedes);
        String id = reissuedIdOf(f, supersedes);
        return Alert.newBuilder(a).setAlertId(id)
                .setEnvelope(io.streamhouse.domain.event.Envelope.newBuilder(a.getEnvelope()).setEventId(id).build()).build();
    }

    public static Alert of(Finding f, String patternId, int patternVersion, String supersedes) {
        String id = alertIdOf(f);
        Map<String, String> attributes = new TreeMap<>(f.facts());
        attributes.put(ANCHOR, f.anchorEventId());
        if (supersedes != null) {
            attributes.put(SUPERSEDES, supersedes);
        }
        return Alert.newBuilder()
                .setEnvelope(Envelopes.create(id, f.subjectId(), f.windowEnd(), f.windowEnd(), SOURCE,
                        EventTypes.versionOf(Alert.class), f.anchorEventId()))
                .setAlertId(id)
                .setType(f.type())
                .setCategory(categoryOf(f))
                .setSeverity(severityOf(f))
                .setSubject(AlertSubject.newBuilder().setKind(f.subjectKind()).setId(f.subjectId()).build())
                .setPatternId(patternId)
                .setPatternVersion(patternVersion)
                .setSummary(summaryOf(f))
                .setMatchedEventIds(f.eventIds())
                .setAttributes(attributes)
                .setWindowStart(f.windowStart())
                .setWindowEnd(f.windowEnd())
                .build();
    }

    /**
     * The revision that withdraws alert {@code withdrawn}: a late event showed its occurrence did not happen (the
     * rising run was not rising, the parcel was delivered in time), and no occurrence replaces it. Status
     * {@code WITHDRAWN}, {@code supersedes} the withdrawn alert, and its matched events and window are the withdrawn
     * alert's (so its id, derived from the withdrawn one's, and all its fields are the same on replay).
     */
    public static Alert withdrawal(String withdrawn, PatternSettings.Kind pattern, int patternVersion, String subjectId,
                                   List<String> eventIds, Instant windowStart, Instant windowEnd) {
        AlertType type = typeOf(pattern);
        String id = Envelopes.derivedEventId("cep-alert-withdrawal", withdrawn);
        Finding f = new Finding(eventIds.get(0), type, subjectKindOf(type), subjectId, eventIds, windowStart, windowEnd,
                Map.of());
        Map<String, String> attributes = new TreeMap<>();
        attributes.put(SUPERSEDES, withdrawn);
        return Alert.newBuilder()
                .setEnvelope(Envelopes.create(id, subjectId, windowEnd, windowEnd, SOURCE,
                        EventTypes.versionOf(Alert.class), withdrawn))
                .setAlertId(id)
                .setType(type)
                .setCategory(categoryOf(f))
                .setSeverity(Severity.LOW)
                .setSubject(AlertSubject.newBuilder().setKind(f.subjectKind()).setId(subjectId).build())
                .setPatternId(pattern.ruleId())
                .setPatternVersion(patternVersion)
                .setSummary("withdrawn: alert " + withdrawn + " (" + pattern.ruleId() + ", " + subjectId
                        + ") did not happen, a late event showed")
                .setMatchedEventIds(f.eventIds())
                .setAttributes(attributes)
                .setWindowStart(windowStart)
                .setWindowEnd(windowEnd)
                .setStatus(AlertStatus.WITHDRAWN)
                .build();
    }

    static AlertType typeOf(PatternSettings.Kind pattern) {
        return switch (pattern) {
            case CARD_TESTING -> AlertType.CARD_TESTING;
            case IMPOSSIBLE_TRAVEL -> AlertType.IMPOSSIBLE_TRAVEL;
            case ACCOUNT_TAKEOVER -> AlertType.ACCOUNT_TAKEOVER;
            case PARCEL_SLA -> AlertType.PARCEL_SLA_BREACH;
            case ENGINE_OVERHEATING -> AlertType.ENGINE_OVERHEATING;
            case MAINTENANCE_DUE -> AlertType.MAINTENANCE_DUE;
        };
    }

    private static SubjectKind subjectKindOf(AlertType type) {
        return switch (type) {
            case CARD_TESTING, IMPOSSIBLE_TRAVEL -> SubjectKind.CARD;
            case ACCOUNT_TAKEOVER -> SubjectKind.CUSTOMER;
            case PARCEL_SLA_BREACH -> SubjectKind.PARCEL;
            case ENGINE_OVERHEATING, MAINTENANCE_DUE -> SubjectKind.VEHICLE;
            default -> SubjectKind.OTHER;
        };
    }

    private static AlertCategory categoryOf(Finding f) {
        return switch (f.type()) {
            case CARD_TESTING, IMPOSSIBLE_TRAVEL, ACCOUNT_TAKEOVER -> AlertCategory.FRAUD;
            case PARCEL_SLA_BREACH -> AlertCategory.PARCEL;
            case ENGINE_OVERHEATING, MAINTENANCE_DUE -> AlertCategory.MAINTENANCE;
            default -> throw new IllegalArgumentException("no category for " + f.type());
        };
    }

    private static Severity severityOf(Finding f) {
        return switch (f.type()) {
            case CARD_TESTING, IMPOSSIBLE_TRAVEL, ACCOUNT_TAKEOVER, ENGINE_OVERHEATING -> Severity.HIGH;
            case PARCEL_SLA_BREACH -> Severity.MEDIUM;
            default -> Severity.LOW;
        };
    }

    private static String summaryOf(Finding f) {
        Map<String, String> x = f.facts();
        return switch (f.type()) {
            case CARD_TESTING -> x.get("smallCount") + " small authorizations then " + x.get("largeAmount")
                    + " on card " + f.subjectId() + " within " + x.get("window");
            case IMPOSSIBLE_TRAVEL -> "card " + f.subjectId() + " used " + x.get("distanceKm") + " km apart ("
                    + x.get("fromCountry") + " -> " + x.get("toCountry") + "), implying " + x.get("impliedKmh") + " km/h";
            case ACCOUNT_TAKEOVER -> "customer " + f.subjectId() + " changed " + x.get("changes") + ", then placed order "
                    + x.get("orderId") + " of " + x.get("orderTotal");
            case PARCEL_SLA_BREACH -> "parcel " + f.subjectId() + " not delivered by "
                    + Instant.parse(x.get("promisedBy")).plus(Duration.parse(x.get("grace"))) + " ("
                    + x.get("outcome") + ")";
            case ENGINE_OVERHEATING -> "vehicle " + f.subjectId() + ": " + x.get("readings")
                    + " rising coolant readings up to " + x.get("maxCoolantC") + " °C";
            case MAINTENANCE_DUE -> "vehicle " + f.subjectId() + " passed " + x.get("serviceMarkKm") + " km: service due";
            default -> f.type().toString();
        };
    }

    private Alerts() {
    }
}
