package io.streamhouse.detection.cep;

import io.streamhouse.domain.event.Address;
import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.Merchant;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderLine;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.events.Monies;
import io.streamhouse.domain.testdata.Hubs;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;

import java.time.Instant;
import java.util.List;

/** Events for the CEP tests, from the shared test vocabulary (T0, Cards, Hubs, Merchants). */
final class CepEvents {
    static final GeoPoint NEW_YORK = GeoPoint.newBuilder().setLat(40.7128).setLon(-74.0060).build();
    static final Merchant DELI_NEW_YORK = Merchant.newBuilder().setMerchantId("m-deli-nyc").setName("Corner Deli")
            .setMcc("5812").setCountry("US").build();

    static TransactionAuthorizationRequested payment(String id, String card, String amount, Instant at) {
        return SampleEvents.transaction(id, card, amount, "EUR", Merchants.GROCER_ROTTERDAM, at);
    }

    static TransactionAuthorizationRequested presentPayment(String id, String card, GeoPoint where, Merchant merchant,
                                                            Instant at) {
        TransactionAuthorizationRequested tx = SampleEvents.transaction(id, card, "25.00", "EUR", merchant, at);
        tx.setChannel(Channel.CARD_PRESENT);
        tx.setLocation(where);
        return tx;
    }

    static CustomerEvent addressChanged(String id, String customer, Address to, Instant at) {
        return CustomerEvent.newBuilder().setEnvelope(SampleEvents.envelope("evt-" + id, customer, at, CustomerEvent.class))
                .setCustomerId(customer)
                .setChange(CustomerAddressChanged.newBuilder().setPrevious(null).setCurrent(to).build()).build();
    }

    static CustomerEvent emailChanged(String id, String customer, Instant at) {
        return CustomerEvent.newBuilder().setEnvelope(SampleEvents.envelope("evt-" + id, customer, at, CustomerEvent.class))
                .setCustomerId(customer)
                .setChange(CustomerEmailChanged.newBuilder().setPrevious(null).setCurrent("new@example.org").build())
                .build();
    }

    static OrderEvent order(String id, String orderId, String customer, String total, Address shipTo, Instant at) {
        return OrderEvent.newBuilder().setEnvelope(SampleEvents.envelope("evt-" + id, orderId, at, OrderEvent.class))
                .setOrderId(orderId).setCustomerId(customer)
                .setChange(OrderPlaced.newBuilder()
                        .setLines(List.of(OrderLine.newBuilder().setSku("sku-1").setQuantity(1)
                                .setUnitPrice(Monies.of(total, "EUR")).build()))
                        .setTotal(Monies.of(total, "EUR")).setShippingAddress(shipTo).setPaymentMethodId(null).build())
                .build();
    }

    static ParcelScanned scan(String id, String parcel, ParcelStatus status, Instant promisedBy, Instant at) {
        return ParcelScanned.newBuilder().setEnvelope(SampleEvents.envelope("evt-" + id, parcel, at, ParcelScanned.class))
                .setParcelId(parcel).setHubId(Hubs.ROTTERDAM).setStatus(status).setVehicleId("truck-7")
                .setLocation(Hubs.ROTTERDAM_POS).setPromisedBy(promisedBy).build();
    }

    static VehicleTelemetry reading(String id, String vehicle, double coolantC, double odometerKm, Instant at) {
        return VehicleTelemetry.newBuilder().setEnvelope(SampleEvents.envelope("evt-" + id, vehicle, at, VehicleTelemetry.class))
                .setVehicleId(vehicle).setPosition(Hubs.ANTWERP_POS).setSpeedKmh(70).setCoolantTempC(coolantC)
                .setOdometerKm(odometerKm).setFaultCodes(List.of()).build();
    }

    private CepEvents() {
    }
}
