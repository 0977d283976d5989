package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.GeoPoint;
import io.streamhouse.domain.events.GreatCircle;

/** Points of the generated world, and distances between them ({@link GreatCircle}, shared with the CEP job). */
public final class Geo {
    /** @see GreatCircle#distanceKm */
    public static double distanceKm(GeoPoint a, GeoPoint b) {
        return GreatCircle.distanceKm(a, b);
    }

    /** @see GreatCircle#speedKmh */
    public static double speedKmh(GeoPoint a, long fromMillis, GeoPoint b, long toMillis) {
        return GreatCircle.speedKmh(a, fromMillis, b, toMillis);
    }

    public static GeoPoint point(double lat, double lon) {
        return GeoPoint.newBuilder().setLat(round6(lat)).setLon(round6(lon)).build();
    }

    /** Six decimals (~0.1 m): enough, and keeps the JSON of a point short and stable. */
    static double round6(double v) {
        return Math.round(v * 1_000_000d) / 1_000_000d;
    }

    private Geo() {
    }
}
