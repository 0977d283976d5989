package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.AlertType;
import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.Device;
import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.event.Merchant;
import io.streamhouse.domain.event.SubjectKind;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.events.Envelopes;
import io.streamhouse.domain.events.Monies;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import static io.streamhouse.loadtests.generator.Simulation.HOUR;
import static io.streamhouse.loadtests.generator.Simulation.MINUTE;
import static io.streamhouse.loadtests.generator.Simulation.SECOND;

/**
 * Cards, merchants and card payments; plants card testing and impossible travel. Normal payments stay clear of both:
 * they are never "small" (at least 3.00), and a card's card-present payments are in its owner's home city, one that
 * would imply more than 300 km/h from the card's previous card-present payment becoming an online payment instead.
 * A planted pattern uses a card of its own (a stolen or cloned card), so normal use of the owner's other cards cannot
 * blur it.
 */
final class PaymentsWorld {
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

    private final Simulation sim;
    private final SplittableRandom rnd;
    private final PatternRules rules;
    private final Customers customers;
    private final String tag;
    private final List<CardInfo> cards = new ArrayList<>();
    private final List<Integer> everydayCards = new ArrayList<>();
    private int txSeq;
    // Cards, by index: the last card-present use.
    private final List<long[]> lastPresentAt = new ArrayList<>();
    private final List<GeoPoint> lastPresentAtPlace = new ArrayList<>();
    // Merchants.
    private final List<List<Merchant>> localShops = new ArrayList<>();
    private final List<List<GeoPoint>> localShopPlaces = new ArrayList<>();
    private final List<Merchant> onlineShops = new ArrayList<>();
    private final List<Merchant> farShops = new ArrayList<>();
    private final List<GeoPoint> farShopPlaces = new ArrayList<>();

    /** Builds the merchants; cards come with their owners ({@link #issueCards}). */
    PaymentsWorld(Simulation sim, Customers customers) {
        this.sim = sim;
        this.rnd = sim.random();
        this.rules = sim.rules();
        this.customers = customers;
        this.tag = sim.tag();
        buildShops();
    }

    /** Every card issued so far, by index. */
    List<CardInfo> cards() {
        return cards;
    }

    /** Gives a new account holder one or two everyday cards; returns the index of the first. */
    int issueCards(int owner) {
        int count = rnd.nextDouble() < 0.4 ? 2 : 1;
        int first = cards.size();
        for (int k = 0; k < count; k++) {
            everydayCards.add(newCard(owner, false));
        }
        return first;
    }

    String token(int card) {
        return cards.get(card).token();
    }

    void normalPayment(boolean onlineOnly) {
        long now = sim.now();
        int card = everydayCards.get(rnd.nextInt(everydayCards.size()));
        int owner = ownerOf(card);
        int homeHub = customers.homeHub(owner);
        double roll = rnd.nextDouble();
        BigDecimal amount = everydayAmount();
        if (!onlineOnly && roll < 0.65) {
            int shop = rnd.nextInt(localShops.get(homeHub).size());
            GeoPoint place = localShopPlaces.get(homeHub).get(shop);
            long[] last = lastPresentAt.get(card);
            boolean plausible = last[0] == Long.MIN_VALUE
                    || Geo.speedKmh(lastPresentAtPlace.get(card), last[0], place, now) <= 300;
            if (plausible) {
                last[0] = now;
                lastPresentAtPlace.set(card, place);
                payment(card, localShops.get(homeHub).get(shop), amount,
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

    void plantCardTesting() {
        long now = sim.now();
        int owner = rnd.nextInt(customers.active());
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
        sim.record(AlertType.CARD_TESTING, SubjectKind.CARD, cards.get(card).token(), ids, now, largeAt,
                Map.of("smallCount", Integer.toString(smalls)));
    }

    void plantImpossibleTravel() {
        long now = sim.now();
        int owner = rnd.nextInt(customers.active());
        int card = newCard(owner, true);
        int homeHub = customers.homeHub(owner);
        int shop = rnd.nextInt(localShops.get(homeHub).size());
        GeoPoint home = localShopPlaces.get(homeHub).get(shop);
        int far = rnd.nextInt(farShops.size());
        GeoPoint away = farShopPlaces.get(far);
        double km = Geo.distanceKm(home, away);
        double kmh = 1_500 + rnd.nextInt(3_500);
        long second = now + Math.max(MINUTE, Math.round(km / kmh * HOUR));
        List<String> ids = List.of(
                payment(card, localShops.get(homeHub).get(shop), everydayAmount(), Channel.CONTACTLESS, home, null, now),
                payment(card, farShops.get(far), everydayAmount(), Channel.CARD_PRESENT, away, null, second));
        sim.record(AlertType.IMPOSSIBLE_TRAVEL, SubjectKind.CARD, cards.get(card).token(), ids, now, second,
                Map.of("distanceKm", String.format(Locale.ROOT, "%.1f", km)));
    }

    private String payment(int card, Merchant merchant, BigDecimal amount, Channel channel, GeoPoint place,
                           Device device, long at) {
        String txId = "g" + tag + "-tx-" + (txSeq++);
        CardInfo info = cards.get(card);
        // The same event id ingest derives from the transaction id, so the ground truth holds for the HTTP target too.
        String eventId = Envelopes.derivedEventId("transaction-requested", txId);
        var tx = TransactionAuthorizationRequested.newBuilder()
                .setEnvelope(sim.envelope(eventId, info.token(), at, TransactionAuthorizationRequested.class))
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
        return sim.add(EventKind.TRANSACTION, info.token(), tx, at);
    }

    private void buildShops() {
        for (int h = 0; h < RoadNetwork.HUBS.size(); h++) {
            RoadNetwork.Hub hub = RoadNetwork.HUBS.get(h);
            List<Merchant> shops = new ArrayList<>();
            List<GeoPoint> places = new ArrayList<>();
            for (int s = 0; s < LOCAL_SHOPS.length; s++) {
                shops.add(merchant("m-" + hub.id().substring(4) + "-" + s, LOCAL_SHOPS[s][1] + " " + hub.city(),
                        LOCAL_SHOPS[s][0], hub.country()));
                places.add(sim.jitter(hub.position()));
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
        cards.add(new CardInfo(index, String.format("tok_gen_%s_%06d", tag, index),
                TestPans.pan(sim.config().seed(), index), customers.id(owner), forPlanting));
        lastPresentAt.add(new long[]{Long.MIN_VALUE});
        lastPresentAtPlace.add(null);
        return index;
    }

    private int ownerOf(int card) {
        String id = cards.get(card).customerId();
        return Integer.parseInt(id.substring(id.lastIndexOf('-') + 1));
    }

    private Device deviceOf(int customer) {
        return Device.newBuilder().setDeviceId("dev-" + customers.id(customer))
                .setIpAddress("198.51.100." + (1 + customer % 250)).setUserAgent("Mozilla/5.0 (generated)").build();
    }
}
