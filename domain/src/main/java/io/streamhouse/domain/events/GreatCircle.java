package io.streamhouse.domain.events;

import io.streamhouse.domain.event.GeoPoint;

/**
 * Great-circle distance on a sphere of the Earth's mean radius; precise enough for "could anyone travel this fast".
 * One definition for the CEP job's impossible-travel pattern and the generator's checker, so both judge alike.
 */
public final class GreatCircle {
    private static final double EARTH_RADIUS_KM = 6371.0088;

    public static double distanceKm(GeoPoint a, GeoPoint b) {
        double lat1 = Math.toRadians(a.getLat());
        double lat2 = Math.toRadians(b.getLat());
        double dLat = lat2 - lat1;
        double dLon = Math.toRadians(b.getLon() - a.getLon());
        double h = Math.sin(dLat / 2) * Math.sin(dLat / 2)
                + Math.cos(lat1) * Math.cos(lat2) * Math.sin(dLon / 2) * Math.sin(dLon / 2);
        return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1.0, Math.sqrt(h)));
    }

    /** km/h needed to cover the distance in the time; infinite when the time is zero and the places differ. */
    public static double speedKmh(GeoPoint a, long fromMillis, GeoPoint b, long toMillis) {
        double km = distanceKm(a, b);
        if (km == 0) {
            return 0;
        }
        long millis = Math.abs(toMillis - fromMillis);
        return millis == 0 ? Double.POSITIVE_INFINITY : km / (millis / 3_600_000.0);
    }

    private GreatCircle() {
    }
}
