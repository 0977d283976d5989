package io.streamhouse.api.serving;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.state.AlertEntry;
import io.streamhouse.domain.state.VehicleHealth;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The JSON answers of the query API (also what an MCP tool would return). */
public final class Views {

    public record Position(double lat, double lon) {
        static Position of(GeoPoint p) {
            return p == null ? null : new Position(p.getLat(), p.getLon());
        }
    }

    /**
     * @param version   when this state became current (event time of the last applied event)
     * @param validTo   when a later version replaced it (only for {@code asOf} answers of past states)
     * @param asOf      the instant asked for, null for "now"
     */
    public record Meta(Instant asOf, Instant version, Instant validTo, Freshness freshness) {
    }

    public record AlertView(String alertId, String type, String category, String severity, String subjectKind,
                            String patternId, String summary, Instant occurredAt) {
        static AlertView of(AlertEntry a) {
            return new AlertView(a.getAlertId(), a.getType(), a.getCategory(), a.getSeverity(), a.getSubjectKind(),
                    a.getPatternId(), a.getSummary(), a.getOccurredAt());
        }

        public static AlertView of(Alert a) {
            return new AlertView(a.getAlertId(), a.getType().name(), a.getCategory().name(), a.getSeverity().name(),
                    a.getSubject().getKind().name(), a.getPatternId(), a.getSummary(), a.getEnvelope().getOccurredAt());
        }
    }

    /**
     * An alert of the feed. {@code status} is ACTIVE or WITHDRAWN (a revision saying the alert named by
     * {@code attributes.supersedes} did not happen); an alert that revises another names it in {@code attributes.supersedes} too.
     */
    public record FeedAlertView(String alertId, String type, String category, String severity, String subjectKind,
                                String subjectId, String patternId, int patternVersion, String summary,
                                Instant occurredAt, List<String> matchedEventIds, Map<String, String> attributes,
                                String status) {
        public static FeedAlertView of(Alert a) {
            return new FeedAlertView(a.getAlertId(), a.getType().name(), a.getCategory().name(), a.getSeverity().name(),
                    a.getSubject().getKind().name(), a.getSubject().getId(), a.getPatternId(), a.getPatternVersion(),
                    a.getSummary(), a.getEnvelope().getOccurredAt(), List.copyOf(a.getMatchedEventIds()), Map.copyOf(a.getAttributes()),
                    a.getStatus() == null ? "ACTIVE" : a.getStatus().name());
        }
    }

    public record ScanView(String eventId, Instant occurredAt, String status, String hubId, String vehicleId) {
    }

    /** The vehicle carrying a parcel, as its own store holds it at the same instant (possibly on another instance). */
    public record CarrierView(String vehicleId, Position position, double speedKmh, Instant lastReadingAt,
                              Freshness freshness, String unavailable) {
    }

    /**
     * @param eta the delivery instant if delivered, else the promised instant: scans carry no destination, so a
     *            route-based estimate is not possible from the log
     */
    public record ParcelView(String parcelId, String status, String hubId, Position location, CarrierView vehicle,
                             Instant promisedBy, Instant eta, Instant deliveredAt, String slaRisk, Instant lastScanAt,
                             long scans, List<ScanView> history, List<AlertView> alerts, Meta meta) {
    }

    public record VehicleView(String vehicleId, Position position, double speedKmh, double coolantTempC,
                              double maxCoolantTempC, double odometerKm, List<String> faultCodes, Instant lastReadingAt,
                              long readings, boolean maintenanceDue, boolean overheating, List<AlertView> alerts, Meta meta) {
        static VehicleView of(VehicleHealth v, List<AlertView> alerts, Meta meta) {
            boolean maintenanceDue = alerts.stream().anyMatch(a -> "MAINTENANCE_DUE".equals(a.type()));
            boolean overheating = alerts.stream().anyMatch(a -> "ENGINE_OVERHEATING".equals(a.type()));
            return new VehicleView(v.getVehicleId(), Position.of(v.getPosition()), v.getSpeedKmh(), v.getCoolantTempC(),
                    v.getMaxCoolantTempC(), v.getOdometerKm(), List.copyOf(v.getFaultCodes()), v.getLastReadingAt(),
                    v.getReadings(), maintenanceDue, overheating, alerts, meta);
        }
    }

    public record OrderView(String orderId, String status, String total, String currency, Instant changedAt) {
    }

    public record DecisionSummary(String transactionId, String cardToken, String outcome, List<String> ruleIds, Instant requestedAt) {
    }

    public record RiskView(String level, List<String> reasons) {
    }

    public record CustomerView(String customerId, String email, String fullName, Instant registeredAt, boolean deleted,
                               long orderCount, Map<String, String> spend, List<OrderView> orders,
                               List<DecisionSummary> lastDecisions, List<String> cards, List<AlertView> openAlerts,
                               RiskView risk, List<String> incomplete, Meta meta) {
    }

    /**
     * @param nextCursor pass as {@code before} for the next (older) page; null when this page is the last
     * @param missingPartitions feed partitions no instance answered for (the page may lack their alerts)
     */
    public record AlertPage(List<FeedAlertView> alerts, String nextCursor, List<Integer> missingPartitions, boolean partial) {
    }

    private Views() {
    }
}
