package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.Address;
import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.Device;
import io.streamhouse.domain.event.Envelope;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.Merchant;
import io.streamhouse.domain.event.OrderCancelled;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderLine;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.OrderStatus;
import io.streamhouse.domain.event.OrderStatusChanged;
import io.streamhouse.domain.event.ParcelScanned;
import io.streamhouse.domain.event.ParcelStatus;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.event.VehicleTelemetry;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.events.Monies;
import org.apache.avro.specific.SpecificRecord;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Generates a run from a {@link GeneratorConfig}: a discrete walk through event time in which each step starts one
 * activity (a payment, a telemetry reading, a parcel's journey, an order, a customer change, or a planted anomaly);
 * an activity writes all its events at once, some of them in the future. The events are then put in event-time
 * order and a share is delayed ({@link #deliver}).
 *
 * <p>How normal traffic stays clear of the patterns (what {@link AnomalyChecker} would otherwise find):
 * <ul>
 *   <li>normal payments are never "small" (at least 3.00), so no card-testing run can form;</li>
 *   <li>a card's card-present payments are in its owner's home city, and one that would imply more than 300 km/h
 *       from the card's previous card-present payment becomes an online payment instead;</li>
 *   <li>a customer changes contact details at most once in two hours, and orders within 65 minutes after a change
 *       stay below the high-value threshold;</li>
 *   <li>normal parcels are delivered well before their promise (24 h after the label; the journey takes ≤ 11 h);</li>
 *   <li>normal coolant stays below 98 °C; a vehicle in a planted episode gets no normal readings meanwhile.</li>
 * </ul>
 * Planted card testing and impossible travel use a card of their own (a stolen or cloned card), so normal use of the
 * owner's other cards cannot blur them.
 */
public final class Generator {
    static final String SOURCE = "load-tests-generator";
    /** Every multi-event activity writes at most this many events; below it only single events fill up the count. */
    private static final int MAX_ACTIVITY_EVENTS = 16;
    private static final long SECOND = 1_000, MINUTE = 60_000, HOUR = 3_600_000;
    private static final List<AlertType> PLANTED = List.of(AlertType.CARD_TESTING, AlertType.IMPOSSIBLE_TRAVEL,
            AlertType.ACCOUNT_TAKEOVER, AlertType.PARCEL_SLA_BREACH, AlertType.ENGINE_OVERHEATING);

    private static final String[] FIRST = {"Anna", "Bram", "Chloé", "Daan", "Emma", "Finn", "Greta", "Hugo", "Ilse",
            "Jonas", "Karin", "Lars", "Mila", "Noah", "Olga", "Pieter", "Quinten", "Rosa", "Sem", "Tess", "Udo", "Vera"};
    private static final String[] LAST = {"de Vries", "Jansen", "Peeters", "Maes", "Müller", "Schmidt", "Bakker",
            "Janssens", "Visser", "Dubois", "Schneider", "Smit", "Claes", "Fischer", "Meijer", "Wouters"};
    private static final String[] STREETS = {"Kerkstraat", "Dorpsstraat", "Stationsweg", "Molenweg", "Rue de la Gare",
            "Hauptstraße", "Schulstraße", "Marktplein", "Lindenlaan", "Grote Markt"};
    private static final String[][] LOCAL_SHOPS = {{"5411", "Supermarkt"}, {"5541", "Tankstation"},
            {"5812", "Restaurant"}, {"5912", "Apotheek"}, {"5732", "Elektro"}, {"5651", "Mode"}};
    private static final String[][] ONLINE_SHOPS = {{"m-web-books", "Leesfabriek Online", "5942", "NL"},
            {"m-web-elec", "Stroomwinkel", "5732", "NL"}, {"m-web-fashion", "Kleiderhaus Online", "5691", "DE"},
            {"m-web-home", "Maison en Ligne", "5712", "BE"}, {"m-web-games", "Spielplatz Digital", "5816", "DE"},
            {"m-web-travel", "Reisbureau Online", "4722", "NL"}};
    private static final String[][] FAR_SHOPS = {{"m-far-mad", "Tienda Madrid", "5411", "ES", "40.4168", "-3.7038"},
            {"m-far-rom", "Negozio Roma", "5812", "IT", "41.9028", "12.4964"},
            {"m-far-lis", "Loja Lisboa", "5651", "PT", "38.7223", "-9.1393"},
            {"m-far-nyc", "Corner Deli NYC", "5812", "US", "40.7128", "-74.0060"},
            {"m-far-ist", "Bazaar Istanbul", "5944", "TR", "41.0082", "28.9784"}};

    private final GeneratorConfig cfg;
    private final PatternRules rules;
    private final SplittableRandom rnd;
    private final String tag;
    private final List<Draft> drafts = new ArrayList<>();
    private final List<Anomaly> planted = new ArrayList<>();
    private final List<CardInfo> cards = new ArrayList<>();
    private final List<Integer> everydayCards = new ArrayList<>();
    private long now;
    private long eventSeq;
    private int txSeq;
    private int orderSeq;
    private int parcelSeq;

    // Customers, by index.
    private final String[] customerId;
    private final String[] fullName;
    private final int[] homeHub;
    private final Address[] address;
    private final String[] email;
    private final long[] lastChange;
    private final int[] firstCard;
    private final long[] registeredAt;
    /** Customers 0..active-1 exist; the rest of the arrays is room for sign-ups during the run. */
    private int active;
    // Cards, by index: the last card-present use.
    private final List<long[]> lastPresentAt = new ArrayList<>();
    private final List<GeoPoint> lastPresentAtPlace = new ArrayList<>();
    // Merchants.
    private final List<List<Merchant>> localShops = new ArrayList<>();
    private final List<List<GeoPoint>> localShopPlaces = new ArrayList<>();
    private final List<Merchant> onlineShops = new ArrayList<>();
    private final List<Merchant> farShops = new ArrayList<>();
    private final List<GeoPoint> farShopPlaces = new ArrayList<>();
    // Vehicles.
    private final Vehicle[] vehicles;
    private int nextVehicle;

    /** An event before delivery order is decided. */
    private record Draft(long at, long seq, EventKind kind, String key, SpecificRecord value, Envelope envelope) {
    }

    public static Generation generate(GeneratorConfig config) {
        return new Generator(config).run();
    }

    private Generator(GeneratorConfig cfg) {
        this.cfg = cfg;
        this.rules = cfg.rules();
        this.rnd = new SplittableRandom(cfg.seed());
        this.tag = Long.toHexString(cfg.seed());
        this.now = cfg.start().toEpochMilli();
        int n = cfg.customers() + cfg.customers() / 10;
        active = cfg.customers();
        registeredAt = new long[n];
        customerId = new String[n];
        fullName = new String[n];
        homeHub = new int[n];
        address = new Address[n];
        email = new String[n];
        lastChange = new long[n];
        firstCard = new int[n];
        buildShops();
        for (int c = 0; c < n; c++) {
            customerId[c] = String.format("c-%s-%05d", tag, c);
            String first = pick(FIRST);
            String last = pick(LAST);
            fullName[c] = first + " " + last;
            homeHub[c] = rnd.nextInt(RoadNetwork.HUBS.size());
            address[c] = newAddress(homeHub[c]);
            email[c] = emailFor(first, last, c, 0);
            lastChange[c] = Long.MIN_VALUE / 2;
            if (c < active) {
                // Accounts opened 30 days to about 5.5 years before the run.
                registeredAt[c] = now - 30L * 24 * HOUR - rnd.nextLong(2_000L * 24 * HOUR);
                issueCards(c);
            }
        }
        vehicles = new Vehicle[cfg.vehicles()];
        for (int v = 0; v < vehicles.length; v++) {
            vehicles[v] = new Vehicle(String.format("truck-%s-%03d", tag, v), rnd.nextInt(RoadNetwork.HUBS.size()),
                    now + rnd.nextLong(30 * MINUTE), 20_000 + rnd.nextInt(180_000), 70 + rnd.nextInt(21));
        }
    }

    private Generation run() {
        int target = cfg.events();
        double[] stride = new double[PLANTED.size()];
        double[] offset = new double[PLANTED.size()];
        int[] stratum = new int[PLANTED.size()];
        for (int i = 0; i < PLANTED.size(); i++) {
            double rate = cfg.rates().of(PLANTED.get(i));
            stride[i] = rate == 0 ? Double.POSITIVE_INFINITY : 1000.0 / rate;
            offset[i] = rnd.nextDouble();
        }
        double meanGap = cfg.meanGap().toMillis();
        while (drafts.size() < target) {
            now += Math.round(-Math.log(1 - rnd.nextDouble()) * meanGap);
            int remaining = target - drafts.size();
            if (remaining < MAX_ACTIVITY_EVENTS) {
                normalPayment(true);
                continue;
            }
            int due = -1;
            for (int i = 0; i < PLANTED.size() && due < 0; i++) {
                if (drafts.size() >= (stratum[i] + offset[i]) * stride[i]) {
                    due = i;
                }
            }
            if (due >= 0) {
                stratum[due]++;
                offset[due] = rnd.nextDouble();
                plant(PLANTED.get(due));
                continue;
            }
            double roll = rnd.nextDouble();
            if (roll < 0.54) {
                normalPayment(false);
            } else if (roll < 0.84) {
                normalReading();
            } else if (roll < 0.90) {
                normalParcel();
            } else if (roll < 0.975) {
                normalOrder();
            } else if (roll < 0.98) {
                signUp();
            } else {
                normalCustomerChange();
            }
        }
        return deliver();
    }

    private void plant(AlertType type) {
        switch (type) {
            case CARD_TESTING -> plantCardTesting();
            case IMPOSSIBLE_TRAVEL -> plantImpossibleTravel();
            case ACCOUNT_TAKEOVER -> plantAccountTakeover();
            case PARCEL_SLA_BREACH -> plantParcelStuck();
            case ENGINE_OVERHEATING -> plantOverheating();
            default -> throw new IllegalStateException("not a planted pattern: " + type);
        }
    }

    // ---------------------------------------------------------------- payments

    private void normalPayment(boolean onlineOnly) {
        int card = everydayCards.get(rnd.nextInt(everydayCards.size()));
        int owner = ownerOf(card);
        double roll = rnd.nextDouble();
        BigDecimal amount = everydayAmount();
        if (!onlineOnly && roll < 0.65) {
            int shop = rnd.nextInt(localShops.get(homeHub[owner]).size());
            GeoPoint place = localShopPlaces.get(homeHub[owner]).get(shop);
            long[] last = lastPresentAt.get(card);
            boolean plausible = last[0] == Long.MIN_VALUE
                    || Geo.speedKmh(lastPresentAtPlace.get(card), last[0], place, now) <= 300;
            if (plausible) {
                last[0] = now;
                lastPresentAtPlace.set(card, place);
                payment(card, localShops.get(homeHub[owner]).get(shop), amount,
                        roll < 0.45 ? Channel.CONTACTLESS : Channel.CARD_PRESENT, place, null, now);
                return;
            }
        }
        payment(card, onlineShops.get(rnd.nextInt(onlineShops.size())), amount, Channel.ECOMMERCE, null,
                deviceOf(owner), now);
    }

    /** 3.00 and up, mostly tens of euros, rarely over a thousand: never "small" in the card-testing sense. */
    private BigDecimal everydayAmount() {
        double euros = 3.0 + Math.min(2_497.0, -Math.log(1 - rnd.nextDouble()) * 45.0);
        return BigDecimal.valueOf(Math.round(euros * 100), 2);
    }

    private void plantCardTesting() {
        int owner = rnd.nextInt(active);
        int card = newCard(owner, true);
        Merchant shop = onlineShops.get(rnd.nextInt(onlineShops.size()));
        Device device = Device.newBuilder().setDeviceId("dev-bot-" + tag + "-" + card).setIpAddress("203.0.113."
                + (1 + rnd.nextInt(250))).setUserAgent("curl/8.5.0").build();
        int smalls = rules.cardTestingMinSmall() + rnd.nextInt(3);
        long at = now;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < smalls; i++) {
            if (i > 0) {
                at += 10 * SECOND + rnd.nextLong(50 * SECOND);
            }
            BigDecimal small = BigDecimal.valueOf(50 + rnd.nextInt(150), 2).min(rules.cardTestingSmallMax());
            ids.add(payment(card, shop, small, Channel.ECOMMERCE, null, device, at));
        }
        long largeAt = at + 30 * SECOND + rnd.nextLong(90 * SECOND);
        BigDecimal large = rules.cardTestingLargeMin().add(BigDecimal.valueOf(rnd.nextInt(200_000), 2));
        ids.add(payment(card, onlineShops.get(rnd.nextInt(onlineShops.size())), large, Channel.ECOMMERCE, null, device,
                largeAt));
        record(AlertType.CARD_TESTING, SubjectKind.CARD, cards.get(card).token(), ids, now, largeAt,
                Map.of("smallCount", Integer.toString(smalls)));
    }

    private void plantImpossibleTravel() {
        int owner = rnd.nextInt(active);
        int card = newCard(owner, true);
        int shop = rnd.nextInt(localShops.get(homeHub[owner]).size());
        GeoPoint home = localShopPlaces.get(homeHub[owner]).get(shop);
        int far = rnd.nextInt(farShops.size());
        GeoPoint away = farShopPlaces.get(far);
        double km = Geo.distanceKm(home, away);
        double kmh = 1_500 + rnd.nextInt(3_500);
        long second = now + Math.max(MINUTE, Math.round(km / kmh * HOUR));
        List<String> ids = List.of(
                payment(card, localShops.get(homeHub[owner]).get(shop), everydayAmount(), Channel.CONTACTLESS, home, null, now),
                payment(card, farShops.get(far), everydayAmount(), Channel.CARD_PRESENT, away, null, second));
        record(AlertType.IMPOSSIBLE_TRAVEL, SubjectKind.CARD, cards.get(card).token(), ids, now, second,
                Map.of("distanceKm", String.format(java.util.Locale.ROOT, "%.1f", km)));
    }

    private String payment(int card, Merchant merchant, BigDecimal amount, Channel channel, GeoPoint place,
                           Device device, long at) {
        String txId = "g" + tag + "-tx-" + (txSeq++);
        CardInfo info = cards.get(card);
        // The same event id ingest derives from the transaction id, so the ground truth holds for the HTTP target too.
        String eventId = Envelopes.derivedEventId("transaction-requested", txId);
        var tx = TransactionAuthorizationRequested.newBuilder()
                .setEnvelope(envelope(eventId, info.token(), at, TransactionAuthorizationRequested.class))
                .setTransactionId(txId)
                .setCardToken(info.token())
                .setCustomerId(info.customerId())
                .setMerchant(merchant)
                .setAmount(Monies.of(amount, "EUR"))
                .setChannel(channel)
                .setLocation(place)
                .setDevice(device)
                .build();
        // Keyed by card token, as the topic's contract says: a card's payments in order on one partition.
        return add(EventKind.TRANSACTION, info.token(), tx, at);
    }

    // ---------------------------------------------------------------- customers and orders

    private void issueCards(int c) {
        int count = rnd.nextDouble() < 0.4 ? 2 : 1;
        firstCard[c] = cards.size();
        for (int k = 0; k < count; k++) {
            everydayCards.add(newCard(c, false));
        }
    }

    /** A new customer registers (CustomerRegistered) and gets cards; until then they do nothing. */
    private void signUp() {
        if (active == customerId.length) {
            normalPayment(false);
            return;
        }
        int c = active++;
        registeredAt[c] = now;
        issueCards(c);
        var event = CustomerEvent.newBuilder()
                .setEnvelope(envelope(nextEventId(), customerId[c], now, CustomerEvent.class))
                .setCustomerId(customerId[c])
                .setChange(CustomerRegistered.newBuilder().setEmail(email[c]).setFullName(fullName[c])
                        .setAddress(address[c]).setRegisteredAt(Instant.ofEpochMilli(now)).build())
                .build();
        add(EventKind.CUSTOMER, customerId[c], event, now);
    }

    private void normalCustomerChange() {
        for (int attempt = 0; attempt < 3; attempt++) {
            int c = rnd.nextInt(active);
            if (now - lastChange[c] >= 2 * HOUR) {
                if (rnd.nextBoolean()) {
                    changeAddress(c, now);
                } else {
                    changeEmail(c, now);
                }
                return;
            }
        }
        normalPayment(false);
    }

    private String changeAddress(int c, long at) {
        int hub = rnd.nextDouble() < 0.7 ? homeHub[c] : rnd.nextInt(RoadNetwork.HUBS.size());
        Address previous = address[c];
        address[c] = newAddress(hub);
        lastChange[c] = at;
        var event = CustomerEvent.newBuilder()
                .setEnvelope(envelope(nextEventId(), customerId[c], at, CustomerEvent.class))
                .setCustomerId(customerId[c])
                .setChange(CustomerAddressChanged.newBuilder().setPrevious(previous).setCurrent(address[c]).build())
                .build();
        return add(EventKind.CUSTOMER, customerId[c], event, at);
    }

    private String changeEmail(int c, long at) {
        String previous = email[c];
        String[] name = fullName[c].split(" ", 2);
        email[c] = emailFor(name[0], name[1], c, 1 + rnd.nextInt(999));
        lastChange[c] = at;
        var event = CustomerEvent.newBuilder()
                .setEnvelope(envelope(nextEventId(), customerId[c], at, CustomerEvent.class))
                .setCustomerId(customerId[c])
                .setChange(CustomerEmailChanged.newBuilder().setPrevious(previous).setCurrent(email[c]).build())
                .build();
        return add(EventKind.CUSTOMER, customerId[c], event, at);
    }

    private void normalOrder() {
        int c = rnd.nextInt(active);
        boolean recentChange = now - lastChange[c] < rules.takeoverWindow().toMillis() + 5 * MINUTE;
        List<OrderLine> lines = new ArrayList<>();
        if (recentChange) {
            lines.add(line(1, 500 + rnd.nextInt(19_500)));
        } else {
            int n = 1 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) {
                lines.add(line(1 + rnd.nextInt(3), 500 + rnd.nextInt(39_500)));
            }
        }
        order(c, lines, now, rnd.nextDouble() < 0.1);
    }

    private void plantAccountTakeover() {
        int c = -1;
        for (int attempt = 0; attempt < 50 && c < 0; attempt++) {
            int candidate = rnd.nextInt(active);
            if (now - lastChange[candidate] >= 2 * HOUR) {
                c = candidate;
            }
        }
        if (c < 0) {
            normalPayment(false);
            return;
        }
        int variant = rnd.nextInt(3);
        List<String> ids = new ArrayList<>();
        long at = now;
        if (variant != 0) {
            ids.add(changeEmail(c, at));
        }
        if (variant != 1) {
            if (!ids.isEmpty()) {
                at += MINUTE + rnd.nextLong(4 * MINUTE);
            }
            ids.add(changeAddress(c, at));
        }
        long orderAt = at + 5 * MINUTE + rnd.nextLong(45 * MINUTE);
        long minor = rules.takeoverHighValue().movePointRight(2).longValueExact();
        List<OrderLine> lines = List.of(line(1, minor + rnd.nextInt(150_000)));
        ids.add(order(c, lines, orderAt, false));
        record(AlertType.ACCOUNT_TAKEOVER, SubjectKind.CUSTOMER, customerId[c], ids, now, orderAt,
                Map.of("changes", variant == 0 ? "address" : variant == 1 ? "email" : "email+address"));
    }

    private OrderLine line(int quantity, long unitCents) {
        return OrderLine.newBuilder().setSku("sku-" + (1000 + rnd.nextInt(9000))).setQuantity(quantity)
                .setUnitPrice(Monies.of(BigDecimal.valueOf(unitCents, 2), "EUR")).build();
    }

    /** Places an order (shipped to the customer's current address) and its later status changes; returns the placement's id. */
    private String order(int c, List<OrderLine> lines, long at, boolean cancelled) {
        String orderId = "g" + tag + "-o-" + (orderSeq++);
        BigDecimal total = BigDecimal.ZERO;
        for (OrderLine l : lines) {
            total = total.add(l.getUnitPrice().getAmount().multiply(BigDecimal.valueOf(l.getQuantity())));
        }
        var placed = OrderEvent.newBuilder()
                .setEnvelope(envelope(nextEventId(), orderId, at, OrderEvent.class))
                .setOrderId(orderId).setCustomerId(customerId[c])
                .setChange(OrderPlaced.newBuilder().setLines(lines).setTotal(Monies.of(total, "EUR"))
                        .setShippingAddress(address[c]).setPaymentMethodId("pm-" + cards.get(firstCard[c]).token())
                        .build())
                .build();
        String placedId = add(EventKind.ORDER, orderId, placed, at);
        if (cancelled) {
            long t = at + 2 * MINUTE + rnd.nextLong(28 * MINUTE);
            add(EventKind.ORDER, orderId, OrderEvent.newBuilder()
                    .setEnvelope(envelope(nextEventId(), orderId, t, OrderEvent.class))
                    .setOrderId(orderId).setCustomerId(customerId[c])
                    .setChange(OrderCancelled.newBuilder().setReason("customer request").setPrevious(OrderStatus.PLACED)
                            .setTotal(Monies.of(total, "EUR")).build()).build(), t);
            return placedId;
        }
        long t = at;
        OrderStatus previous = OrderStatus.PLACED;
        long[] after = {MINUTE + rnd.nextLong(9 * MINUTE), 20 * MINUTE + rnd.nextLong(100 * MINUTE),
                HOUR + rnd.nextLong(4 * HOUR)};
        OrderStatus[] next = {OrderStatus.PAID, OrderStatus.PACKED, OrderStatus.SHIPPED};
        for (int i = 0; i < next.length; i++) {
            t += after[i];
            add(EventKind.ORDER, orderId, OrderEvent.newBuilder()
                    .setEnvelope(envelope(nextEventId(), orderId, t, OrderEvent.class))
                    .setOrderId(orderId).setCustomerId(customerId[c])
                    .setChange(OrderStatusChanged.newBuilder().setPrevious(previous).setCurrent(next[i])
                            .setTotal(Monies.of(total, "EUR")).build())
                    .build(), t);
            previous = next[i];
        }
        return placedId;
    }

    // ---------------------------------------------------------------- parcels

    /** A parcel's scans up to OUT_FOR_DELIVERY: what the last scan needs to know. */
    private record Journey(String parcelId, int from, int to, String vehicleId, long outForDeliveryAt,
                           String outForDeliveryEventId, long promisedBy) {
    }

    private Journey journey(long promisedOffsetFromLabel, boolean promiseFromOfd, long promiseAfterOfd) {
        String parcelId = "P" + tag + "-" + (parcelSeq++);
        int from = rnd.nextInt(RoadNetwork.HUBS.size());
        List<Integer> neighbours = RoadNetwork.neighbours(from);
        int to = neighbours.get(rnd.nextInt(neighbours.size()));
        String vehicleId = vehicles[rnd.nextInt(vehicles.length)].id;
        long label = now;
        long received = label + 20 * MINUTE + rnd.nextLong(70 * MINUTE);
        long sorted = received + 5 * MINUTE + rnd.nextLong(25 * MINUTE);
        long loaded = sorted + 5 * MINUTE + rnd.nextLong(25 * MINUTE);
        long inTransit = loaded + 2 * MINUTE + rnd.nextLong(8 * MINUTE);
        long drive = Math.round(RoadNetwork.roadKm(from, to) / 70.0 * HOUR);
        long ofd = inTransit + drive + 10 * MINUTE + rnd.nextLong(30 * MINUTE);
        long promisedBy = promiseFromOfd ? ofd + promiseAfterOfd : label + promisedOffsetFromLabel;
        GeoPoint fromPos = RoadNetwork.HUBS.get(from).position();
        GeoPoint toPos = RoadNetwork.HUBS.get(to).position();
        scan(parcelId, null, ParcelStatus.LABEL_CREATED, null, jitter(fromPos), promisedBy, label);
        scan(parcelId, RoadNetwork.HUBS.get(from).id(), ParcelStatus.RECEIVED_AT_HUB, null, fromPos, promisedBy, received);
        scan(parcelId, RoadNetwork.HUBS.get(from).id(), ParcelStatus.SORTED, null, fromPos, promisedBy, sorted);
        scan(parcelId, RoadNetwork.HUBS.get(from).id(), ParcelStatus.LOADED, vehicleId, fromPos, promisedBy, loaded);
        scan(parcelId, null, ParcelStatus.IN_TRANSIT, vehicleId, Geo.point((fromPos.getLat() + toPos.getLat()) / 2,
                (fromPos.getLon() + toPos.getLon()) / 2), promisedBy, inTransit);
        String ofdId = scan(parcelId, RoadNetwork.HUBS.get(to).id(), ParcelStatus.OUT_FOR_DELIVERY, vehicleId, toPos,
                promisedBy, ofd);
        return new Journey(parcelId, from, to, vehicleId, ofd, ofdId, promisedBy);
    }

    private void normalParcel() {
        Journey j = journey(24 * HOUR, false, 0);
        long delivered = j.outForDeliveryAt() + 15 * MINUTE + rnd.nextLong(165 * MINUTE);
        scan(j.parcelId(), null, ParcelStatus.DELIVERED, j.vehicleId(),
                jitter(RoadNetwork.HUBS.get(j.to()).position()), j.promisedBy(), delivered);
    }

    private void plantParcelStuck() {
        long promiseAfterOfd = HOUR + rnd.nextLong(2 * HOUR);
        Journey j = journey(0, true, promiseAfterOfd);
        long promisedBy = j.promisedBy();
        long deadline = promisedBy + rules.parcelGrace().toMillis();
        List<String> ids = new ArrayList<>(List.of(j.outForDeliveryEventId()));
        GeoPoint dest = RoadNetwork.HUBS.get(j.to()).position();
        String how;
        if (rnd.nextBoolean()) {
            ids.add(scan(j.parcelId(), null, ParcelStatus.DELIVERED, j.vehicleId(), jitter(dest), promisedBy,
                    deadline + 10 * MINUTE + rnd.nextLong(110 * MINUTE)));
            how = "delivered-late";
        } else {
            long failed = deadline + 10 * MINUTE + rnd.nextLong(50 * MINUTE);
            scan(j.parcelId(), null, ParcelStatus.DELIVERY_FAILED, j.vehicleId(), jitter(dest), promisedBy, failed);
            scan(j.parcelId(), RoadNetwork.HUBS.get(j.to()).id(), ParcelStatus.RETURNED, null, dest, promisedBy,
                    failed + HOUR + rnd.nextLong(2 * HOUR));
            how = "never-delivered";
        }
        record(AlertType.PARCEL_SLA_BREACH, SubjectKind.PARCEL, j.parcelId(), ids, j.outForDeliveryAt(), deadline,
                Map.of("outcome", how, "promisedBy", Instant.ofEpochMilli(promisedBy).toString()));
    }

    private String scan(String parcelId, String hubId, ParcelStatus status, String vehicleId, GeoPoint where,
                        Long promisedBy, long at) {
        var event = ParcelScanned.newBuilder()
                .setEnvelope(envelope(nextEventId(), parcelId, at, ParcelScanned.class))
                .setParcelId(parcelId).setHubId(hubId).setStatus(status).setVehicleId(vehicleId).setLocation(where)
                .setPromisedBy(promisedBy == null ? null : Instant.ofEpochMilli(promisedBy))
                .build();
        return add(EventKind.PARCEL_SCAN, parcelId, event, at);
    }

    // ---------------------------------------------------------------- vehicles

    /** A truck driving hub to neighbouring hub with a dwell at each; its state only moves forward in time. */
    private final class Vehicle {
        final String id;
        int from;
        int to;
        long departAt;
        long arriveAt;
        double legKm;
        double odometerAtDeparture;
        final int cruiseKmh;
        long busyUntil = Long.MIN_VALUE;

        Vehicle(String id, int hub, long departAt, double odometer, int cruiseKmh) {
            this.id = id;
            this.from = hub;
            this.cruiseKmh = cruiseKmh;
            this.odometerAtDeparture = odometer;
            startLeg(hub, departAt);
        }

        private void startLeg(int hub, long depart) {
            from = hub;
            List<Integer> n = RoadNetwork.neighbours(hub);
            to = n.get(rnd.nextInt(n.size()));
            departAt = depart;
            legKm = RoadNetwork.roadKm(from, to);
            arriveAt = departAt + Math.round(legKm / cruiseKmh * HOUR);
        }

        VehicleTelemetry reading(long at, double coolant, List<String> faults) {
            while (at >= arriveAt) {
                odometerAtDeparture += legKm;
                startLeg(to, arriveAt + 5 * MINUTE + rnd.nextLong(20 * MINUTE));
            }
            GeoPoint a = RoadNetwork.HUBS.get(from).position();
            GeoPoint b = RoadNetwork.HUBS.get(to).position();
            double f = at < departAt ? 0 : (double) (at - departAt) / (arriveAt - departAt);
            double speed = at < departAt ? 0 : cruiseKmh - 5 + rnd.nextDouble() * 10;
            return VehicleTelemetry.newBuilder()
                    .setEnvelope(envelope(nextEventId(), id, at, VehicleTelemetry.class))
                    .setVehicleId(id)
                    .setPosition(Geo.point(a.getLat() + (b.getLat() - a.getLat()) * f, a.getLon() + (b.getLon() - a.getLon()) * f))
                    .setSpeedKmh(Math.round(speed * 10) / 10.0)
                    .setCoolantTempC(Math.round(coolant * 10) / 10.0)
                    .setOdometerKm(Math.round((odometerAtDeparture + legKm * f) * 10) / 10.0)
                    .setFaultCodes(faults)
                    .build();
        }
    }

    private void normalReading() {
        for (int tries = 0; tries < vehicles.length; tries++) {
            Vehicle v = vehicles[nextVehicle];
            nextVehicle = (nextVehicle + 1) % vehicles.length;
            if (v.busyUntil < now) {
                // 84-97 °C: warm with speed, never near the overheating threshold.
                double coolant = 84 + rnd.nextDouble() * 4 + (now >= v.departAt && now < v.arriveAt ? 6 : 0)
                        + rnd.nextDouble() * 3;
                add(EventKind.VEHICLE_TELEMETRY, v.id, v.reading(now, coolant, List.of()), now);
                return;
            }
        }
        normalPayment(false);
    }

    private void plantOverheating() {
        Vehicle v = null;
        int start = rnd.nextInt(vehicles.length);
        for (int i = 0; i < vehicles.length && v == null; i++) {
            Vehicle candidate = vehicles[(start + i) % vehicles.length];
            if (candidate.busyUntil < now) {
                v = candidate;
            }
        }
        if (v == null) {
            normalReading();
            return;
        }
        int readings = rules.overheatingMinReadings() + rnd.nextInt(3);
        long at = now + 5 * SECOND + rnd.nextLong(25 * SECOND);
        long first = at;
        double coolant = rules.coolantThresholdC() + 1 + rnd.nextDouble() * 2;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < readings; i++) {
            if (i > 0) {
                at += 15 * SECOND + rnd.nextLong(25 * SECOND);
                coolant += 1.5 + rnd.nextDouble() * 2.5;
            }
            List<String> faults = i == readings - 1 ? List.of("P0217") : List.of();
            ids.add(add(EventKind.VEHICLE_TELEMETRY, v.id, v.reading(at, coolant, faults), at));
        }
        v.busyUntil = at;
        record(AlertType.ENGINE_OVERHEATING, SubjectKind.VEHICLE, v.id, ids, first, at,
                Map.of("readings", Integer.toString(readings)));
    }

    // ---------------------------------------------------------------- world building

    private void buildShops() {
        for (int h = 0; h < RoadNetwork.HUBS.size(); h++) {
            RoadNetwork.Hub hub = RoadNetwork.HUBS.get(h);
            List<Merchant> shops = new ArrayList<>();
            List<GeoPoint> places = new ArrayList<>();
            for (int s = 0; s < LOCAL_SHOPS.length; s++) {
                shops.add(merchant("m-" + hub.id().substring(4) + "-" + s, LOCAL_SHOPS[s][1] + " " + hub.city(),
                        LOCAL_SHOPS[s][0], hub.country()));
                places.add(jitter(hub.position()));
            }
            localShops.add(shops);
            localShopPlaces.add(places);
        }
        for (String[] s : ONLINE_SHOPS) {
            onlineShops.add(merchant(s[0], s[1], s[2], s[3]));
        }
        for (String[] s : FAR_SHOPS) {
            farShops.add(merchant(s[0], s[1], s[2], s[3]));
            farShopPlaces.add(Geo.point(Double.parseDouble(s[4]), Double.parseDouble(s[5])));
        }
    }

    private static Merchant merchant(String id, String name, String mcc, String country) {
        return Merchant.newBuilder().setMerchantId(id).setName(name).setMcc(mcc).setCountry(country).build();
    }

    private int newCard(int owner, boolean forPlanting) {
        int index = cards.size();
        cards.add(new CardInfo(index, String.format("tok_gen_%s_%06d", tag, index), TestPans.pan(cfg.seed(), index),
                customerId[owner], forPlanting));
        lastPresentAt.add(new long[]{Long.MIN_VALUE});
        lastPresentAtPlace.add(null);
        return index;
    }

    private int ownerOf(int card) {
        String id = cards.get(card).customerId();
        return Integer.parseInt(id.substring(id.lastIndexOf('-') + 1));
    }

    private Device deviceOf(int customer) {
        return Device.newBuilder().setDeviceId("dev-" + customerId[customer])
                .setIpAddress("198.51.100." + (1 + customer % 250)).setUserAgent("Mozilla/5.0 (generated)").build();
    }

    private Address newAddress(int hub) {
        RoadNetwork.Hub h = RoadNetwork.HUBS.get(hub);
        String postal = "NL".equals(h.country())
                ? h.postalPrefix() + String.format("%02d %c%c", rnd.nextInt(100), 'A' + rnd.nextInt(26), 'A' + rnd.nextInt(26))
                : "DE".equals(h.country()) ? h.postalPrefix() + String.format("%03d", rnd.nextInt(1000))
                : h.postalPrefix() + String.format("%02d", rnd.nextInt(100));
        return Address.newBuilder().setLine1(pick(STREETS) + " " + (1 + rnd.nextInt(200))).setLine2(null)
                .setCity(h.city()).setPostalCode(postal).setCountry(h.country()).setLocation(jitter(h.position()))
                .build();
    }

    private String emailFor(String first, String last, int c, int variant) {
        String local = (first + "." + last).toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z.]", "");
        return local + "." + c + (variant == 0 ? "" : "+" + variant) + "@example.com";
    }

    /** Within about 5 km of a point. */
    private GeoPoint jitter(GeoPoint p) {
        return Geo.point(p.getLat() + (rnd.nextDouble() - 0.5) * 0.08, p.getLon() + (rnd.nextDouble() - 0.5) * 0.12);
    }

    private String pick(String[] options) {
        return options[rnd.nextInt(options.length)];
    }

    // ---------------------------------------------------------------- bookkeeping

    private String nextEventId() {
        return UUID.nameUUIDFromBytes(("streamhouse-generator:" + cfg.seed() + ":" + (eventSeq++))
                .getBytes(StandardCharsets.UTF_8)).toString();
    }

    private Envelope envelope(String eventId, String key, long at, Class<? extends SpecificRecord> type) {
        // recordedAt is set again when the delivery order is known.
        Instant t = Instant.ofEpochMilli(at);
        return Envelopes.create(eventId, key, t, t, SOURCE, EventTypes.versionOf(type), null);
    }

    private String add(EventKind kind, String key, SpecificRecord value, long at) {
        Envelope envelope = (Envelope) value.get(0);
        drafts.add(new Draft(at, drafts.size(), kind, key, value, envelope));
        return envelope.getEventId();
    }

    private void record(AlertType type, SubjectKind kind, String subject, List<String> ids, long from, long to,
                        Map<String, String> facts) {
        Map<String, String> parameters = new java.util.TreeMap<>(rules.parametersOf(type));
        parameters.putAll(facts);
        planted.add(new Anomaly(type, kind, subject, ids, Instant.ofEpochMilli(from), Instant.ofEpochMilli(to), parameters));
    }

    /**
     * Puts the drafts in event-time order, then delays a {@code lateRatio} share of them: most by up to the lateness
     * bound, {@code beyondBoundShare} of them past it. An event counts as late when an event with a later event time
     * was delivered before it; its lateness is by how much. recordedAt becomes the (simulated) delivery time.
     */
    private Generation deliver() {
        List<Draft> byTime = new ArrayList<>(drafts);
        byTime.sort(Comparator.comparingLong(Draft::at).thenComparingLong(Draft::seq));
        int n = byTime.size();
        long bound = cfg.latenessBound().toMillis();
        long minDelay = Math.min(SECOND, bound / 2);
        long[] deliverAt = new long[n];
        for (int i = 0; i < n; i++) {
            long delay = 0;
            if (rnd.nextDouble() < cfg.lateRatio()) {
                delay = rnd.nextDouble() < cfg.beyondBoundShare()
                        ? bound + 1 + rnd.nextLong(2 * bound)
                        : minDelay + rnd.nextLong(bound - minDelay + 1);
            }
            deliverAt[i] = byTime.get(i).at() + delay;
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, Comparator.<Integer>comparingLong(i -> deliverAt[i]).thenComparingInt(i -> i));
        List<GeneratedEvent> events = new ArrayList<>(n);
        List<LateEvent> late = new ArrayList<>();
        long newest = Long.MIN_VALUE;
        for (int d = 0; d < n; d++) {
            Draft draft = byTime.get(order[d]);
            draft.envelope().setRecordedAt(Instant.ofEpochMilli(deliverAt[order[d]]));
            long lateness = newest > draft.at() ? newest - draft.at() : 0;
            newest = Math.max(newest, draft.at());
            Instant occurredAt = Instant.ofEpochMilli(draft.at());
            events.add(new GeneratedEvent(d, draft.kind(), draft.key(), draft.envelope().getEventId(), occurredAt,
                    draft.value(), lateness));
            if (lateness > 0) {
                late.add(new LateEvent(draft.envelope().getEventId(), draft.kind(), draft.key(), occurredAt, d,
                        lateness, lateness > bound));
            }
        }
        List<Anomaly> anomalies = new ArrayList<>(planted);
        anomalies.sort(Comparator.comparing(Anomaly::windowStart).thenComparing(Anomaly::type)
                .thenComparing(Anomaly::subjectId));
        List<CustomerInfo> customers = new ArrayList<>();
        for (int c = 0; c < active; c++) {
            customers.add(new CustomerInfo(customerId[c], fullName[c], Instant.ofEpochMilli(registeredAt[c]),
                    c >= cfg.customers(), RoadNetwork.HUBS.get(homeHub[c]).id()));
        }
        return new Generation(cfg, events, anomalies, late, cards, customers);
    }

    static Map<AlertType, Long> countByType(List<Anomaly> anomalies) {
        Map<AlertType, Long> counts = new EnumMap<>(AlertType.class);
        for (Anomaly a : anomalies) {
            counts.merge(a.type(), 1L, Long::sum);
        }
        return counts;
    }
}
