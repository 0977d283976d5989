package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.Address;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.IntUnaryOperator;

import static io.streamhouse.loadtests.generator.Simulation.HOUR;

/**
 * The people of the generated world, by index: who they are, where they live, their current contact details and
 * when these last changed. Everyone, including those who sign up during the run, is drawn up front; customers
 * {@code 0..active()-1} have an account. Writes no events: {@link ShopWorld} writes what happens to them.
 */
final class Customers {
    private static final String[] FIRST = {"Anna", "Bram", "Chloé", "Daan", "Emma", "Finn", "Greta", "Hugo", "Ilse",
            "Jonas", "Karin", "Lars", "Mila", "Noah", "Olga", "Pieter", "Quinten", "Rosa", "Sem", "Tess", "Udo", "Vera"};
    private static final String[] LAST = {"de Vries", "Jansen", "Peeters", "Maes", "Müller", "Schmidt", "Bakker",
            "Janssens", "Visser", "Dubois", "Schneider", "Smit", "Claes", "Fischer", "Meijer", "Wouters"};
    private static final String[] STREETS = {"Kerkstraat", "Dorpsstraat", "Stationsweg", "Molenweg", "Rue de la Gare",
            "Hauptstraße", "Schulstraße", "Marktplein", "Lindenlaan", "Grote Markt"};

    private final Simulation sim;
    private final SplittableRandom rnd;
    private final int initial;
    private final String[] customerId;
    private final String[] fullName;
    private final int[] homeHub;
    private final Address[] address;
    private final String[] email;
    private final long[] lastChange;
    private final int[] firstCard;
    private final long[] registeredAt;
    private int active;

    /** Room for the initial customers and a tenth more for sign-ups; nobody is drawn until {@link #populate}. */
    Customers(Simulation sim) {
        this.sim = sim;
        this.rnd = sim.random();
        this.initial = sim.config().customers();
        int n = initial + initial / 10;
        active = initial;
        registeredAt = new long[n];
        customerId = new String[n];
        fullName = new String[n];
        homeHub = new int[n];
        address = new Address[n];
        email = new String[n];
        lastChange = new long[n];
        firstCard = new int[n];
    }

    /**
     * Draws everyone; the initial customers get accounts opened 30 days to about 5.5 years before the run and their
     * cards from {@code issueCards} (customer index to the index of their first card).
     */
    void populate(IntUnaryOperator issueCards) {
        long now = sim.now();
        for (int c = 0; c < customerId.length; c++) {
            customerId[c] = String.format("c-%s-%05d", sim.tag(), c);
            String first = sim.pick(FIRST);
            String last = sim.pick(LAST);
            fullName[c] = first + " " + last;
            homeHub[c] = rnd.nextInt(RoadNetwork.HUBS.size());
            address[c] = newAddress(homeHub[c]);
            email[c] = emailFor(first, last, c, 0);
            lastChange[c] = Long.MIN_VALUE / 2;
            if (c < active) {
                registeredAt[c] = now - 30L * 24 * HOUR - rnd.nextLong(2_000L * 24 * HOUR);
                firstCard[c] = issueCards.applyAsInt(c);
            }
        }
    }

    /** True when everyone drawn up front has an account. */
    boolean full() {
        return active == customerId.length;
    }

    /** Opens the next customer's account at {@code at}; returns their index. */
    int signUp(long at, IntUnaryOperator issueCards) {
        int c = active++;
        registeredAt[c] = at;
        firstCard[c] = issueCards.applyAsInt(c);
        return c;
    }

    int active() {
        return active;
    }

    String id(int c) {
        return customerId[c];
    }

    String fullName(int c) {
        return fullName[c];
    }

    int homeHub(int c) {
        return homeHub[c];
    }

    Address address(int c) {
        return address[c];
    }

    String email(int c) {
        return email[c];
    }

    long lastChange(int c) {
        return lastChange[c];
    }

    int firstCard(int c) {
        return firstCard[c];
    }

    /** Moves a customer to a new address near {@code hub}; returns the previous one. */
    Address move(int c, int hub, long at) {
        Address previous = address[c];
        address[c] = newAddress(hub);
        lastChange[c] = at;
        return previous;
    }

    /** Gives a customer a new e-mail address; returns the previous one. */
    String changeEmail(int c, long at) {
        String previous = email[c];
        String[] name = fullName[c].split(" ", 2);
        email[c] = emailFor(name[0], name[1], c, 1 + rnd.nextInt(999));
        lastChange[c] = at;
        return previous;
    }

    List<CustomerInfo> infos() {
        List<CustomerInfo> customers = new ArrayList<>();
        for (int c = 0; c < active; c++) {
            customers.add(new CustomerInfo(customerId[c], fullName[c], Instant.ofEpochMilli(registeredAt[c]),
                    c >= initial, RoadNetwork.HUBS.get(homeHub[c]).id()));
        }
        return customers;
    }

    private Address newAddress(int hub) {
        RoadNetwork.Hub h = RoadNetwork.HUBS.get(hub);
        String postal = "NL".equals(h.country())
                ? h.postalPrefix() + String.format("%02d %c%c", rnd.nextInt(100), 'A' + rnd.nextInt(26), 'A' + rnd.nextInt(26))
                : "DE".equals(h.country()) ? h.postalPrefix() + String.format("%03d", rnd.nextInt(1000))
                : h.postalPrefix() + String.format("%02d", rnd.nextInt(100));
        return Address.newBuilder().setLine1(sim.pick(STREETS) + " " + (1 + rnd.nextInt(200))).setLine2(null)
                .setCity(h.city()).setPostalCode(postal).setCountry(h.country()).setLocation(sim.jitter(h.position()))
                .build();
    }

    private static String emailFor(String first, String last, int c, int variant) {
        String local = (first + "." + last).toLowerCase(Locale.ROOT).replaceAll("[^a-z.]", "");
        return local + "." + c + (variant == 0 ? "" : "+" + variant) + "@example.com";
    }
}
