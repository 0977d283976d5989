package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;

import java.math.BigDecimal;

/**
 * The body of {@code POST /v1/transactions} for a generated authorization, as ingest's TransactionRequestParser
 * reads it: {@code transactionId, occurredAt, card.number, customerId, merchant{id,name,mcc,country}, amount,
 * currency, channel, location{lat,lon}, device{id,ip,userAgent}}. The card goes as its test PAN ({@link TestPans});
 * ingest tokenizes it and derives the event id from the transaction id, as the generator did.
 */
public final class TransactionJson {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    public static ObjectNode body(TransactionAuthorizationRequested tx, String pan) {
        ObjectNode body = F.objectNode();
        body.put("transactionId", tx.getTransactionId());
        body.put("occurredAt", tx.getEnvelope().getOccurredAt().toString());
        body.putObject("card").put("number", pan);
        if (tx.getCustomerId() != null) {
            body.put("customerId", tx.getCustomerId());
        }
        body.putObject("merchant")
                .put("id", tx.getMerchant().getMerchantId())
                .put("name", tx.getMerchant().getName())
                .put("mcc", tx.getMerchant().getMcc())
                .put("country", tx.getMerchant().getCountry());
        body.put("amount", plain(tx.getAmount().getAmount()));
        body.put("currency", tx.getAmount().getCurrency());
        body.put("channel", tx.getChannel().name());
        if (tx.getLocation() != null) {
            body.putObject("location").put("lat", tx.getLocation().getLat()).put("lon", tx.getLocation().getLon());
        }
        if (tx.getDevice() != null) {
            ObjectNode device = body.putObject("device").put("id", tx.getDevice().getDeviceId());
            if (tx.getDevice().getIpAddress() != null) {
                device.put("ip", tx.getDevice().getIpAddress());
            }
            if (tx.getDevice().getUserAgent() != null) {
                device.put("userAgent", tx.getDevice().getUserAgent());
            }
        }
        return body;
    }

    /** "12.50", not the wire's "12.5000": same value, as a person would type it. */
    private static String plain(BigDecimal amount) {
        BigDecimal stripped = amount.stripTrailingZeros();
        return stripped.scale() < 2 ? amount.setScale(2, java.math.RoundingMode.UNNECESSARY).toPlainString()
                : stripped.toPlainString();
    }

    private TransactionJson() {
    }
}
