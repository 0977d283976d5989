package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.GeoPoint;

import java.util.List;

/**
 * Parcel hubs in NL, BE and DE and the roads between neighbouring hubs. Vehicles drive these legs; parcels move from
 * a hub to a neighbouring one. Road length is the straight line times {@link #ROAD_FACTOR}.
 */
public final class RoadNetwork {
    public static final double ROAD_FACTOR = 1.25;

    /** A hub, and the city its customers and shops are in. */
    public record Hub(String id, String city, String country, GeoPoint position, String postalPrefix) {
    }

    public static final List<Hub> HUBS = List.of(
            hub("hub-ams", "Amsterdam", "NL", 52.3676, 4.9041, "10"),
            hub("hub-rtm", "Rotterdam", "NL", 51.9244, 4.4777, "30"),
            hub("hub-utr", "Utrecht", "NL", 52.0907, 5.1214, "35"),
            hub("hub-ein", "Eindhoven", "NL", 51.4416, 5.4697, "56"),
            hub("hub-anr", "Antwerpen", "BE", 51.2194, 4.4025, "20"),
            hub("hub-bru", "Bruxelles", "BE", 50.8503, 4.3517, "10"),
            hub("hub-lgg", "Liège", "BE", 50.6326, 5.5797, "40"),
            hub("hub-cgn", "Köln", "DE", 50.9375, 6.9603, "50"),
            hub("hub-dus", "Düsseldorf", "DE", 51.2277, 6.7735, "40"));

    /** Undirected legs by index into {@link #HUBS}. */
    private static final int[][] ROADS = {
            {0, 1}, {0, 2}, {1, 2}, {1, 4}, {2, 3}, {3, 4}, {3, 8}, {3, 6}, {4, 5}, {5, 6}, {6, 7}, {7, 8}};

    public static List<Integer> neighbours(int hub) {
        java.util.ArrayList<Integer> n = new java.util.ArrayList<>();
        for (int[] r : ROADS) {
            if (r[0] == hub) {
                n.add(r[1]);
            } else if (r[1] == hub) {
                n.add(r[0]);
            }
        }
        return n;
    }

    public static double roadKm(int from, int to) {
        return Geo.distanceKm(HUBS.get(from).position(), HUBS.get(to).position()) * ROAD_FACTOR;
    }

    private static Hub hub(String id, String city, String country, double lat, double lon, String postalPrefix) {
        return new Hub(id, city, country, Geo.point(lat, lon), postalPrefix);
    }

    private RoadNetwork() {
    }
}
