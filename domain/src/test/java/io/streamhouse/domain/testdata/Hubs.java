package io.streamhouse.domain.testdata;

import io.streamhouse.domain.event.GeoPoint;

/** Parcel hubs and places used across tests. */
public final class Hubs {
    public static final String ROTTERDAM = "hub-rtm";
    public static final String ANTWERP = "hub-anr";
    public static final GeoPoint ROTTERDAM_POS = GeoPoint.newBuilder().setLat(51.9244).setLon(4.4777).build();
    public static final GeoPoint ANTWERP_POS = GeoPoint.newBuilder().setLat(51.2194).setLon(4.4025).build();

    private Hubs() {
    }
}
