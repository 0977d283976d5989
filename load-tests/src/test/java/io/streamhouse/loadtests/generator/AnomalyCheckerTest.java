package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.Address;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderLine;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.events.Monies;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Hubs;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.streamhouse.domain.testdata.Times.ONE_MINUTE;
import static io.streamhouse.domain.testdata.Times.T0;
import static org.assertj.core.api.Assertions.assertThat;

/** Each pattern on hand-made events: given these events, when scanned, expect this finding (or none). */
class AnomalyCheckerTest {
    static final PatternRules RULES = PatternRules.DEFAULT;
    static final GeoPoint MADRID = Geo.point(40.4168, -3.7038);
    final List<GeneratedEvent> given = new ArrayList<>();

    @Test
    void cardTestingIsThreeSmallThenALargeWithinTenMinutes() {
        tx("s1", Cards.STOLEN, "1.00", Channel.ECOMMERCE, null, T0);
        tx("s2", Cards.STOLEN, "0.50", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE));
        tx("s3", Cards.STOLEN, "2.00", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE.multipliedBy(2)));
        tx("big", Cards.STOLEN, "900.00", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE.multipliedBy(9)));
        tx("other", Cards.ALICE, "900.00", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE.multipliedBy(9)));

        var found = only(AlertType.CARD_TESTING);
        assertThat(found.subjectId()).isEqualTo(Cards.STOLEN);
        assertThat(found.eventIds()).containsExactly("s1", "s2", "s3", "big");
        assertThat(found.windowStart()).isEqualTo(T0);
        assertThat(found.windowEnd()).isEqualTo(T0.plus(ONE_MINUTE.multipliedBy(9)));
    }

    @Test
    void noCardTestingWhenTheLargeComesTooLateOrTooFewSmallPrecedeIt() {
        tx("s1", Cards.STOLEN, "1.00", Channel.ECOMMERCE, null, T0);
        tx("s2", Cards.STOLEN, "1.00", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE.multipliedBy(3)));
        tx("s3", Cards.STOLEN, "1.00", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE.multipliedBy(4)));
        tx("big", Cards.STOLEN, "900.00", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE.multipliedBy(11)));
        tx("b1", Cards.BOB, "1.00", Channel.ECOMMERCE, null, T0);
        tx("b2", Cards.BOB, "2.01", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE));
        tx("b3", Cards.BOB, "1.00", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE.multipliedBy(2)));
        tx("bbig", Cards.BOB, "500.00", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE.multipliedBy(3)));

        assertThat(AnomalyChecker.scan(given, RULES)).isEmpty();
    }

    @Test
    void impossibleTravelIsTwoCardPresentUsesFasterThan900KmH() {
        tx("home", Cards.ALICE, "20.00", Channel.CONTACTLESS, Hubs.ROTTERDAM_POS, T0);
        tx("online", Cards.ALICE, "20.00", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE));
        tx("madrid", Cards.ALICE, "20.00", Channel.CARD_PRESENT, MADRID, T0.plus(Duration.ofMinutes(60)));
        // Rotterdam to Antwerp (~80 km) in 30 minutes is a fast car, not a fraud.
        tx("b-rtm", Cards.BOB, "20.00", Channel.CARD_PRESENT, Hubs.ROTTERDAM_POS, T0);
        tx("b-anr", Cards.BOB, "20.00", Channel.CARD_PRESENT, Hubs.ANTWERP_POS, T0.plus(Duration.ofMinutes(30)));

        var found = only(AlertType.IMPOSSIBLE_TRAVEL);
        assertThat(found.eventIds()).containsExactly("home", "madrid");
        assertThat(Double.parseDouble(found.parameters().get("distanceKm"))).isGreaterThan(1_400);
    }

    @Test
    void accountTakeoverIsAHighValueOrderToTheNewAddressWithinAnHourOfAChange() {
        Address newAddress = SampleEvents.address("Schiedamsedijk 1", "Rotterdam");
        customer("mail", "c-1", CustomerEmailChanged.newBuilder().setPrevious("a@example.com").setCurrent("x@example.org").build(), T0);
        customer("addr", "c-1", CustomerAddressChanged.newBuilder().setPrevious(null).setCurrent(newAddress).build(), T0.plus(ONE_MINUTE));
        order("small", "c-1", "999.99", newAddress, T0.plus(ONE_MINUTE.multipliedBy(10)));
        order("big", "c-1", "1500.00", newAddress, T0.plus(ONE_MINUTE.multipliedBy(50)));
        // Another customer: high value, but 61 minutes after the change.
        customer("c2-mail", "c-2", CustomerEmailChanged.newBuilder().setPrevious(null).setCurrent("y@example.org").build(), T0);
        order("c2-big", "c-2", "5000.00", newAddress, T0.plus(Duration.ofMinutes(61)));

        var found = only(AlertType.ACCOUNT_TAKEOVER);
        assertThat(found.subjectId()).isEqualTo("c-1");
        assertThat(found.eventIds()).containsExactly("mail", "addr", "big");
        assertThat(found.parameters()).containsEntry("changes", "email+address");
    }

    @Test
    void aHighValueOrderToAnotherAddressAfterAnAddressChangeIsNotATakeover() {
        customer("addr", "c-1", CustomerAddressChanged.newBuilder().setPrevious(null)
                .setCurrent(SampleEvents.address("Coolsingel 40", "Rotterdam")).build(), T0);
        order("big", "c-1", "1500.00", SampleEvents.address("Meir 1", "Antwerpen"), T0.plus(ONE_MINUTE));
        assertThat(AnomalyChecker.scan(given, RULES)).isEmpty();
    }

    @Test
    void aParcelBreachesWhenDeliveredAfterPromiseAndGraceOrNeverWhileTheStreamMovesOn() {
        Instant promise = T0.plus(Duration.ofHours(3));
        scan("late-ofd", "P-1", ParcelStatus.OUT_FOR_DELIVERY, promise, T0);
        scan("late-del", "P-1", ParcelStatus.DELIVERED, promise, promise.plus(Duration.ofHours(2)).plusSeconds(1));
        scan("ok-ofd", "P-2", ParcelStatus.OUT_FOR_DELIVERY, promise, T0);
        scan("ok-del", "P-2", ParcelStatus.DELIVERED, promise, promise.plus(Duration.ofHours(2)));
        scan("lost-ofd", "P-3", ParcelStatus.OUT_FOR_DELIVERY, T0.plus(ONE_MINUTE), T0);
        // P-4 is out for delivery and its deadline is still ahead of the stream: not (yet) a breach.
        scan("open-ofd", "P-4", ParcelStatus.OUT_FOR_DELIVERY, T0.plus(Duration.ofHours(10)), T0);

        var found = AnomalyChecker.scan(given, RULES);
        assertThat(found).extracting(Anomaly::subjectId).containsExactlyInAnyOrder("P-1", "P-3");
        assertThat(found).filteredOn(a -> a.subjectId().equals("P-1")).singleElement()
                .satisfies(a -> assertThat(a.eventIds()).containsExactly("late-ofd", "late-del"));
        assertThat(found).filteredOn(a -> a.subjectId().equals("P-3")).singleElement()
                .satisfies(a -> assertThat(a.windowEnd()).isEqualTo(T0.plus(ONE_MINUTE).plus(Duration.ofHours(2))));
    }

    @Test
    void overheatingIsThreeRisingHotReadingsWithinFiveMinutes() {
        reading("n0", "truck-1", 92, T0);
        reading("h1", "truck-1", 106, T0.plusSeconds(20));
        reading("h2", "truck-1", 108, T0.plusSeconds(40));
        reading("h3", "truck-1", 111, T0.plusSeconds(60));
        reading("n1", "truck-1", 95, T0.plusSeconds(80));
        // Hot but not rising, and hot and rising but too slow.
        reading("f1", "truck-2", 110, T0);
        reading("f2", "truck-2", 109, T0.plusSeconds(20));
        reading("f3", "truck-2", 112, T0.plusSeconds(40));
        reading("s1", "truck-3", 106, T0);
        reading("s2", "truck-3", 107, T0.plus(Duration.ofMinutes(3)));
        reading("s3", "truck-3", 108, T0.plus(Duration.ofMinutes(6)));

        var found = only(AlertType.ENGINE_OVERHEATING);
        assertThat(found.subjectId()).isEqualTo("truck-1");
        assertThat(found.eventIds()).containsExactly("h1", "h2", "h3");
    }

    @Test
    void deliveryOrderDoesNotChangeWhatIsFound() {
        tx("s1", Cards.STOLEN, "1.00", Channel.ECOMMERCE, null, T0);
        tx("s2", Cards.STOLEN, "1.00", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE));
        tx("s3", Cards.STOLEN, "1.00", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE.multipliedBy(2)));
        tx("big", Cards.STOLEN, "900.00", Channel.ECOMMERCE, null, T0.plus(ONE_MINUTE.multipliedBy(3)));
        var inOrder = AnomalyChecker.scan(given, RULES);
        var reversed = new ArrayList<>(given);
        java.util.Collections.reverse(reversed);
        assertThat(AnomalyChecker.scan(reversed, RULES)).isEqualTo(inOrder).hasSize(1);
    }

    private Anomaly only(AlertType type) {
        var found = AnomalyChecker.scan(given, RULES);
        assertThat(found).extracting(Anomaly::type).containsExactly(type);
        return found.get(0);
    }

    private void tx(String id, String card, String amount, Channel channel, GeoPoint where, Instant at) {
        var tx = TransactionAuthorizationRequested.newBuilder()
                .setEnvelope(SampleEvents.envelope(id, id, at, TransactionAuthorizationRequested.class))
                .setTransactionId(id).setCardToken(card).setCustomerId("c-1").setMerchant(Merchants.GROCER_ROTTERDAM)
                .setAmount(Monies.of(amount, "EUR")).setChannel(channel).setLocation(where).setDevice(null).build();
        add(EventKind.TRANSACTION, id, tx, at);
    }

    private void customer(String id, String customer, Object change, Instant at) {
        add(EventKind.CUSTOMER, customer, CustomerEvent.newBuilder()
                .setEnvelope(SampleEvents.envelope(id, customer, at, CustomerEvent.class))
                .setCustomerId(customer).setChange(change).build(), at);
    }

    private void order(String id, String customer, String total, Address shipTo, Instant at) {
        add(EventKind.ORDER, id, OrderEvent.newBuilder()
                .setEnvelope(SampleEvents.envelope(id, "o-" + id, at, OrderEvent.class))
                .setOrderId("o-" + id).setCustomerId(customer)
                .setChange(OrderPlaced.newBuilder()
                        .setLines(List.of(OrderLine.newBuilder().setSku("sku-1").setQuantity(1)
                                .setUnitPrice(Monies.of(total, "EUR")).build()))
                        .setTotal(Monies.of(total, "EUR")).setShippingAddress(shipTo).setPaymentMethodId(null).build())
                .build(), at);
    }

    private void scan(String id, String parcel, ParcelStatus status, Instant promisedBy, Instant at) {
        add(EventKind.PARCEL_SCAN, parcel, ParcelScanned.newBuilder()
                .setEnvelope(SampleEvents.envelope(id, parcel, at, ParcelScanned.class))
                .setParcelId(parcel).setHubId(Hubs.ROTTERDAM).setStatus(status).setVehicleId(null)
                .setLocation(Hubs.ROTTERDAM_POS).setPromisedBy(promisedBy).build(), at);
    }

    private void reading(String id, String vehicle, double coolant, Instant at) {
        add(EventKind.VEHICLE_TELEMETRY, vehicle, VehicleTelemetry.newBuilder()
                .setEnvelope(SampleEvents.envelope(id, vehicle, at, VehicleTelemetry.class))
                .setVehicleId(vehicle).setPosition(Hubs.ANTWERP_POS).setSpeedKmh(80).setCoolantTempC(coolant)
                .setOdometerKm(1000).setFaultCodes(List.of()).build(), at);
    }

    private void add(EventKind kind, String key, SpecificRecord value, Instant at) {
        String id = ((io.streamhouse.domain.event.Envelope) value.get(0)).getEventId();
        given.add(new GeneratedEvent(given.size(), kind, key, id, at, value, 0));
    }
}
