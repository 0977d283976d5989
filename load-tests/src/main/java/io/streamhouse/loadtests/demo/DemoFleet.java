package io.streamhouse.loadtests.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A small fleet story for the demo: truck-7 reports its position through ingest and parcel P-1042 is received,
 * loaded onto truck-7 and sent out for delivery; then the api's parcel projection is read back until it shows the
 * parcel out for delivery on truck-7 with the truck's position. Loopback only, bounded by the deadline.
 */
public final class DemoFleet {
    public static final String PARCEL = "P-1042";
    public static final String VEHICLE = "truck-7";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** @return the parcel as the api answers it, or null if it did not show within the deadline */
    /** {@code deviceToken} sends the telemetry and scans (role device); {@code opsToken} reads the parcel (role ops). */
    public static JsonNode run(URI ingest, URI api, Instant start, Duration deadline, String deviceToken, String opsToken)
            throws IOException, InterruptedException {
        for (URI uri : List.of(ingest, api)) {
            if (!"127.0.0.1".equals(uri.getHost()) && !"localhost".equals(uri.getHost())) {
                throw new IllegalArgumentException("load is only sent to loopback addresses, not " + uri);
            }
        }
        long until = System.nanoTime() + deadline.toNanos();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        post(http, deviceToken, ingest.resolve("/v1/telemetry"), List.of(
                reading(start, 51.9244, 4.4777, 0, 82.0),
                reading(start.plusSeconds(30), 51.9170, 4.4860, 38.5, 88.5)));
        String[][] scans = {{"RECEIVED_AT_HUB", null}, {"LOADED", VEHICLE}, {"OUT_FOR_DELIVERY", VEHICLE}};
        for (int i = 0; i < scans.length; i++) {
            var scan = new java.util.LinkedHashMap<String, Object>();
            scan.put("occurredAt", start.plusSeconds(10L * i).toString());
            scan.put("status", scans[i][0]);
            scan.put("hubId", "hub-rtm");
            if (scans[i][1] != null) {
                scan.put("vehicleId", scans[i][1]);
            }
            scan.put("location", Map.of("lat", 51.9244, "lon", 4.4777));
            scan.put("promisedBy", start.plus(Duration.ofHours(4)).toString());
            post(http, deviceToken, ingest.resolve("/v1/parcels/" + PARCEL + "/scans"), scan);
        }
        long pause = 10;
        while (System.nanoTime() < until) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(api.resolve("/v1/parcels/" + PARCEL))
                    .timeout(Duration.ofSeconds(5)).header("Authorization", "Bearer " + opsToken).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                JsonNode parcel = JSON.readTree(r.body());
                if ("OUT_FOR_DELIVERY".equals(parcel.path("status").asText()) && parcel.path("vehicle").path("position").isObject()) {
                    return parcel;
                }
            } else if (r.statusCode() != 404 && r.statusCode() != 503) {
                throw new IOException("api answered HTTP " + r.statusCode() + " for parcel " + PARCEL + ": " + r.body());
            }
            Thread.sleep(pause); // back-off of a client polling until its deadline
            pause = Math.min(200, pause * 2);
        }
        return null;
    }

    private static Map<String, Object> reading(Instant at, double lat, double lon, double speed, double coolant) {
        return Map.of("vehicleId", VEHICLE, "occurredAt", at.toString(), "position", Map.of("lat", lat, "lon", lon),
                "speedKmh", speed, "coolantTempC", coolant, "odometerKm", 120_345.6, "faultCodes", List.of());
    }

    private static void post(HttpClient http, String token, URI uri, Object body) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(15))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 202) {
            throw new IOException("ingest refused " + uri.getPath() + ": HTTP " + r.statusCode() + " " + r.body());
        }
    }

    private DemoFleet() {
    }
}
