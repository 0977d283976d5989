package io.streamhouse.ingest.transactions;

import io.streamhouse.domain.events.EventTimes;
import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.Device;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.Merchant;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.events.Monies;
import io.streamhouse.ingest.http.JsonFields;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns one JSON authorization request into the event, or records why not. The card arrives either as a
 * {@code card.number} (tokenized here, never kept) or as an already issued {@code card.token}.
 * The event id is derived from the transaction id, so a retried request yields the same event id and downstream
 * de-duplication recognises it. The event's key (and Kafka record key) is the card token: one card's payments stay
 * in order on one partition, where the decision topology keeps the card's state.
 */
public final class TransactionRequestParser {
    static final Pattern ID = JsonFields.ID;
    static final Pattern MCC = Pattern.compile("\\d{4}");
    static final Pattern COUNTRY = Pattern.compile("[A-Z]{2}");
    static final Pattern TOKEN = Pattern.compile("tok_[A-Za-z0-9_-]{8,64}");
    static final String SOURCE = "ingest-http";
    private static final Set<String> TOP = Set.of("transactionId", "occurredAt", "card", "customerId", "merchant", "amount",
            "currency", "channel", "location", "device");
    private static final Set<String> CARD = Set.of("number", "token");
    private static final Set<String> MERCHANT = Set.of("id", "name", "mcc", "country");
    private static final Set<String> DEVICE = Set.of("id", "ip", "userAgent");

    private final CardTokenizer tokenizer;

    public TransactionRequestParser(CardTokenizer tokenizer) {
        this.tokenizer = tokenizer;
    }

    /** @return the event, or null when {@code fields} holds the errors */
    public TransactionAuthorizationRequested parse(JsonNode json, String path, Instant recordedAt, JsonFields fields) {
        int errorsBefore = fields.errors().size();
        if (json == null || !json.isObject()) {
            fields.error(path.isEmpty() ? "$" : path, "must be a JSON object");
            return null;
        }
        fields.rejectUnknown(json, path, TOP);
        String transactionId = fields.text(json, path, "transactionId", true, 64, ID,
                "must be 1-64 letters, digits or . _ : - starting with a letter or digit");
        Instant occurredAt = fields.instant(json, path, "occurredAt", true);
        if (occurredAt != null && occurredAt.isAfter(recordedAt.plus(EventTimes.MAX_AHEAD))) {
            fields.error(JsonFields.join(path, "occurredAt"), "is more than " + EventTimes.MAX_AHEAD.toMinutes() + " minutes in the future");
        }
        String cardToken = card(json, path, fields);
        String customerId = fields.text(json, path, "customerId", false, 64, ID, "must be 1-64 letters, digits or . _ : -");
        Merchant merchant = merchant(json, path, fields);
        BigDecimal amount = fields.decimal(json, path, "amount", true);
        String currency = fields.text(json, path, "currency", true, 3, null, null);
        var money = (amount == null || currency == null) ? null
                : fields.check(JsonFields.join(path, amount.signum() <= 0 ? "amount" : "currency"), v -> {
                    if (amount.signum() <= 0) {
                        throw new IllegalArgumentException("must be greater than zero");
                    }
                    return Monies.of(amount, currency);
                });
        Channel channel = fields.enumValue(json, path, "channel", true, Channel.class, Set.of(Channel.UNKNOWN));
        GeoPoint location = fields.geoPoint(json, path, "location", false);
        Device device = device(json, path, fields);

        if (fields.errors().size() > errorsBefore) {
            return null;
        }
        return TransactionAuthorizationRequested.newBuilder()
                .setEnvelope(Envelopes.create(Envelopes.derivedEventId("transaction-requested", transactionId),
                        cardToken, occurredAt, recordedAt, SOURCE,
                        EventTypes.versionOf(TransactionAuthorizationRequested.class), null))
                .setTransactionId(transactionId)
                .setCardToken(cardToken)
                .setCustomerId(customerId)
                .setMerchant(merchant)
                .setAmount(money)
                .setChannel(channel)
                .setLocation(location)
                .setDevice(device)
                .build();
    }

    private String card(JsonNode json, String path, JsonFields fields) {
        String p = JsonFields.join(path, "card");
        JsonNode card = fields.object(json, path, "card", true);
        if (card == null) {
            return null;
        }
        fields.rejectUnknown(card, p, CARD);
        boolean hasNumber = card.hasNonNull("number");
        boolean hasToken = card.hasNonNull("token");
        if (hasNumber == hasToken) {
            fields.error(p, "give exactly one of card.number or card.token");
            return null;
        }
        if (hasToken) {
            return fields.text(card, p, "token", true, 68, TOKEN, "must be a token issued by Streamhouse (tok_...)");
        }
        JsonNode number = card.get("number");
        String digits = number.isTextual() ? number.asText().replace(" ", "").replace("-", "") : null;
        if (!CardTokenizer.isValidPan(digits)) {
            // Never echo the number back: it may be a real card.
            fields.error(JsonFields.join(p, "number"), "is not a valid card number (12-19 digits, Luhn check)");
            return null;
        }
        return tokenizer.tokenize(digits);
    }

    private Merchant merchant(JsonNode json, String path, JsonFields fields) {
        String p = JsonFields.join(path, "merchant");
        JsonNode m = fields.object(json, path, "merchant", true);
        if (m == null) {
            return null;
        }
        fields.rejectUnknown(m, p, MERCHANT);
        String id = fields.text(m, p, "id", true, 64, ID, "must be 1-64 letters, digits or . _ : -");
        String name = fields.text(m, p, "name", true, 128, null, null);
        String mcc = fields.text(m, p, "mcc", true, 4, MCC, "must be a four-digit merchant category code");
        String country = fields.text(m, p, "country", true, 2, COUNTRY, "must be an ISO 3166-1 alpha-2 code like NL");
        if (id == null || name == null || mcc == null || country == null) {
            return null;
        }
        return Merchant.newBuilder().setMerchantId(id).setName(name).setMcc(mcc).setCountry(country).build();
    }

    private static Device device(JsonNode json, String path, JsonFields fields) {
        String p = JsonFields.join(path, "device");
        JsonNode d = fields.object(json, path, "device", false);
        if (d == null) {
            return null;
        }
        fields.rejectUnknown(d, p, DEVICE);
        String id = fields.text(d, p, "id", true, 128, null, null);
        String ip = fields.text(d, p, "ip", false, 45, Pattern.compile("[0-9a-fA-F:.]+"), "must be an IPv4 or IPv6 address");
        String ua = fields.text(d, p, "userAgent", false, 512, null, null);
        return id == null ? null : Device.newBuilder().setDeviceId(id).setIpAddress(ip).setUserAgent(ua).build();
    }
}
