package io.streamhouse.domain.testdata;

import io.streamhouse.domain.decision.CardFeatures;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.event.Address;
import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.event.AlertCategory;
import io.streamhouse.domain.event.AlertSubject;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.Device;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.Merchant;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderLine;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.Severity;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.events.Monies;
import io.streamhouse.domain.decision.Decisions;
import org.apache.avro.specific.SpecificRecord;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** One filled-in example of every event type, built from the shared vocabulary. */
public final class SampleEvents {

    public static Envelope envelope(String eventId, String key, Instant at, Class<? extends SpecificRecord> type) {
        return Envelopes.create(eventId, key, at, at.plusMillis(5), "test", EventTypes.versionOf(type), null);
    }

    public static TransactionAuthorizationRequested transaction(String id, String card, String amount, String currency,
                                                                Merchant merchant, Instant at) {
        return TransactionAuthorizationRequested.newBuilder()
                .setEnvelope(envelope("evt-" + id, card, at, TransactionAuthorizationRequested.class))
                .setTransactionId(id)
                .setCardToken(card)
                .setCustomerId("c-1")
                .setMerchant(merchant)
                .setAmount(Monies.of(amount, currency))
                .setChannel(Channel.ECOMMERCE)
                .setLocation(Hubs.ROTTERDAM_POS)
                .setDevice(Device.newBuilder().setDeviceId("dev-1").setIpAddress("203.0.113.7").setUserAgent(null).build())
                .build();
    }

    public static Address address(String line1, String city) {
        return Address.newBuilder().setLine1(line1).setLine2(null).setCity(city).setPostalCode("3011 AA").setCountry("NL")
                .setLocation(Hubs.ROTTERDAM_POS).build();
    }

    public static List<SpecificRecord> oneOfEach() {
        Instant t = Times.T0;
        var tx = transaction("tx-1", Cards.ALICE, "12.50", "EUR", Merchants.GROCER_ROTTERDAM, t);
        return List.of(
                CustomerEvent.newBuilder()
                        .setEnvelope(envelope("evt-c1", "c-1", t, CustomerEvent.class))
                        .setCustomerId("c-1")
                        .setChange(CustomerAddressChanged.newBuilder().setPrevious(null)
                                .setCurrent(address("Coolsingel 40", "Rotterdam")).build())
                        .build(),
                OrderEvent.newBuilder()
                        .setEnvelope(envelope("evt-o1", "o-1", t, OrderEvent.class))
                        .setOrderId("o-1").setCustomerId("c-1")
                        .setChange(OrderPlaced.newBuilder()
                                .setLines(List.of(OrderLine.newBuilder().setSku("sku-1").setQuantity(2)
                                        .setUnitPrice(Monies.of("19.99", "EUR")).build()))
                                .setTotal(Monies.of("39.98", "EUR"))
                                .setShippingAddress(address("Coolsingel 40", "Rotterdam"))
                                .setPaymentMethodId("pm-1")
                                .build())
                        .build(),
                tx,
                Decisions.toEvent(tx, DefaultRules.ruleSet().decide(tx, Features.of(CardFeatures.firstPayment(tx.getTransactionId(), tx.getAmount().getAmount()))),
                        t.plusMillis(20)),
                VehicleTelemetry.newBuilder()
                        .setEnvelope(envelope("evt-v1", "truck-7", t, VehicleTelemetry.class))
                        .setVehicleId("truck-7").setPosition(Hubs.ANTWERP_POS).setSpeedKmh(72.5).setCoolantTempC(91.0)
                        .setOdometerKm(120_345.6).setFaultCodes(List.of("P0217"))
                        .build(),
                ParcelScanned.newBuilder()
                        .setEnvelope(envelope("evt-p1", "P-1042", t, ParcelScanned.class))
                        .setParcelId("P-1042").setHubId(Hubs.ROTTERDAM).setStatus(ParcelStatus.OUT_FOR_DELIVERY)
                        .setVehicleId("truck-7").setLocation(Hubs.ROTTERDAM_POS).setPromisedBy(t.plus(Times.ONE_HOUR))
                        .build(),
                Alert.newBuilder()
                        .setEnvelope(envelope("evt-a1", Cards.STOLEN, t, Alert.class))
                        .setAlertId("a-1").setType(AlertType.CARD_TESTING).setCategory(AlertCategory.FRAUD)
                        .setSeverity(Severity.HIGH)
                        .setSubject(AlertSubject.newBuilder().setKind(SubjectKind.CARD).setId(Cards.STOLEN).build())
                        .setPatternId("card-testing").setPatternVersion(1).setSummary("3 small then 1 large")
                        .setMatchedEventIds(List.of("e1", "e2", "e3", "e4")).setAttributes(Map.of("count", "4"))
                        .setWindowStart(t).setWindowEnd(t.plus(Times.ONE_MINUTE))
                        .build(),
                DefaultRules.definitions().get(0),
                reviewOutcome("rev-1", "tx-1", Cards.ALICE, io.streamhouse.domain.event.ReviewOutcome.LEGITIMATE, t.plus(Times.ONE_MINUTE)),
                auditEvent("aud-1", "reviewer-1", t.plus(Times.ONE_MINUTE)));
    }

    /** A rules administrator's successful rule change, as the api records it on audit.events. */
    public static io.streamhouse.domain.event.AuditEvent auditEvent(String eventId, String subject, Instant at) {
        return io.streamhouse.domain.event.AuditEvent.newBuilder()
                .setEnvelope(envelope(eventId, subject, at, io.streamhouse.domain.event.AuditEvent.class))
                .setSubject(subject).setRoles(List.of("rules_admin")).setAction(io.streamhouse.domain.event.AuditAction.RULE_CHANGED)
                .setResourceType("rule").setResource("very-large-amount-block").setDetails(Map.of("version", "2"))
                .setChannel("http").setClientAddress("127.0.0.1").setService("streamhouse-api").setInstance("host-1/4242")
                .setRequest("PUT /v1/rules/very-large-amount-block").setOutcome(io.streamhouse.domain.event.AuditOutcome.SUCCESS)
                .setStatus(202).setReason(null)
                .build();
    }

    /** A reviewer's verdict on a payment held for review, keyed by the payment's card. */
    public static io.streamhouse.domain.event.ReviewOutcomeRecorded reviewOutcome(String eventId, String transactionId, String card,
                                                                                  io.streamhouse.domain.event.ReviewOutcome outcome, Instant at) {
        return io.streamhouse.domain.event.ReviewOutcomeRecorded.newBuilder()
                .setEnvelope(envelope(eventId, card, at, io.streamhouse.domain.event.ReviewOutcomeRecorded.class))
                .setTransactionId(transactionId).setCardToken(card).setCustomerId("c-1")
                .setOutcome(outcome).setReviewer("agent-7").setNote("customer denied it").setDecisionEventId("dec-" + transactionId)
                .build();
    }

    private SampleEvents() {
    }
}
