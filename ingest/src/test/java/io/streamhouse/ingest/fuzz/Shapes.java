package io.streamhouse.ingest.fuzz;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The valid payloads, edges and broken rules of each ingest endpoint, per its contract (docs/decisions.md,
 * docs/ingest.md).
 */
final class Shapes {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    static Payloads.Shape transactions(String run, String pathAndQuery) {
        return new Payloads.Shape() {
            @Override
            public String path(long i, SplittableRandom random) {
                return pathAndQuery;
            }

            @Override
            public ObjectNode valid(long i, SplittableRandom random) {
                ObjectNode o = F.objectNode();
                o.put("transactionId", "fz-" + run + "-" + i);
                o.put("occurredAt", Payloads.at(i));
                o.putObject("card").put("number", luhn("4000" + String.format("%011d", Math.floorMod(run.hashCode() * 7919L + i, 100_000_000_000L))));
                if (random.nextBoolean()) {
                    o.put("customerId", "c-" + random.nextInt(1000));
                }
                o.putObject("merchant").put("id", "m-" + random.nextInt(50)).put("name", "Shop " + random.nextInt(50))
                        .put("mcc", Payloads.pick(random, List.of("5411", "5942", "7995", "5541"))).put("country",
                                Payloads.pick(random, List.of("NL", "BE", "DE", "MT")));
                o.put("amount", (1 + random.nextInt(5000)) + "." + String.format("%02d", random.nextInt(100)));
                o.put("currency", Payloads.pick(random, List.of("EUR", "USD", "GBP")));
                o.put("channel", Payloads.pick(random, List.of("CARD_PRESENT", "CONTACTLESS", "ECOMMERCE", "MOTO", "ATM")));
                if (random.nextBoolean()) {
                    o.putObject("location").put("lat", -90 + random.nextDouble() * 180).put("lon", -180 + random.nextDouble() * 360);
                }
                if (random.nextInt(4) == 0) {
                    o.putObject("device").put("id", "d-" + i).put("ip", "192.168.1." + random.nextInt(255)).put("userAgent", "fuzz/1");
                }
                return o;
            }

            @Override
            public List<ObjectNode> edges(long i) {
                SplittableRandom r = new SplittableRandom(i);
                ObjectNode longId = valid(i, r);
                longId.put("transactionId", ("fz-" + run + "-" + i + "-").concat("x".repeat(64)).substring(0, 64));
                ObjectNode smallest = valid(i, r);
                smallest.put("amount", "0.0001");
                ObjectNode largest = valid(i, r);
                largest.put("amount", "999999999999999.9999");
                ObjectNode asNumber = valid(i, r);
                asNumber.put("amount", new java.math.BigDecimal("12.5"));
                ObjectNode trailingZeros = valid(i, r);
                trailingZeros.put("amount", "7.500000");
                ObjectNode poles = valid(i, r);
                poles.putObject("location").put("lat", 90).put("lon", -180);
                ObjectNode unicodeName = valid(i, r);
                ((ObjectNode) unicodeName.get("merchant")).put("name", "é".repeat(128));
                ObjectNode spacedCard = valid(i, r);
                String digits = spacedCard.get("card").get("number").asText();
                ((ObjectNode) spacedCard.get("card")).put("number", digits.replaceAll("(\\d{4})", "$1 ").trim());
                ObjectNode millis = valid(i, r);
                millis.put("occurredAt", Instant.parse(Payloads.at(i)).plusMillis(123).toString());
                ObjectNode ipv6 = valid(i, r);
                ipv6.putObject("device").put("id", "d").put("ip", "::1");
                return List.of(longId, smallest, largest, asNumber, trailingZeros, poles, unicodeName, spacedCard, millis, ipv6);
            }

            @Override
            public List<ObjectNode> broken(long i) {
                SplittableRandom r = new SplittableRandom(i);
                List<ObjectNode> out = new java.util.ArrayList<>();
                for (String amount : List.of("0", "-1.00", "1.00001", "10000000000000000.00", "1e999999999", "12,50", "")) {
                    ObjectNode o = valid(i, r);
                    o.put("amount", amount);
                    out.add(o);
                }
                for (String currency : List.of("EURO", "eur", "XYZ", "")) {
                    ObjectNode o = valid(i, r);
                    o.put("currency", currency);
                    out.add(o);
                }
                ObjectNode mcc = valid(i, r);
                ((ObjectNode) mcc.get("merchant")).put("mcc", "541");
                ObjectNode country = valid(i, r);
                ((ObjectNode) country.get("merchant")).put("country", "nl");
                ObjectNode luhn = valid(i, r);
                String n = luhn.get("card").get("number").asText();
                ((ObjectNode) luhn.get("card")).put("number", n.substring(0, 15) + ((n.charAt(15) - '0' + 1) % 10));
                ObjectNode both = valid(i, r);
                ((ObjectNode) both.get("card")).put("token", "tok_abcdefgh12345678");
                ObjectNode longId = valid(i, r);
                longId.put("transactionId", "x".repeat(65));
                ObjectNode badTime = valid(i, r);
                badTime.put("occurredAt", "2026-03-02 09:00:00");
                ObjectNode future = valid(i, r);
                future.put("occurredAt", Instant.now().plus(1, ChronoUnit.DAYS).toString());
                ObjectNode lat = valid(i, r);
                lat.putObject("location").put("lat", 90.000001).put("lon", 0);
                ObjectNode channel = valid(i, r);
                channel.put("channel", "TELEPATHY");
                ObjectNode unknownChannel = valid(i, r);
                unknownChannel.put("channel", "UNKNOWN");
                ObjectNode longName = valid(i, r);
                ((ObjectNode) longName.get("merchant")).put("name", "n".repeat(129));
                out.addAll(List.of(mcc, country, luhn, both, longId, badTime, future, lat, channel, unknownChannel, longName));
                return out;
            }

            @Override
            public List<String> required() {
                return List.of("transactionId", "occurredAt", "card", "merchant", "amount", "currency", "channel");
            }

            @Override
            public boolean batches() {
                return pathAndQuery.equals("/v1/transactions");
            }
        };
    }

    static Payloads.Shape telemetry(String run) {
        return new Payloads.Shape() {
            @Override
            public String path(long i, SplittableRandom random) {
                return "/v1/telemetry";
            }

            @Override
            public ObjectNode valid(long i, SplittableRandom random) {
                ObjectNode o = F.objectNode();
                o.put("vehicleId", "fz-" + run + "-" + i);
                o.put("occurredAt", Payloads.at(i));
                o.putObject("position").put("lat", 50 + random.nextDouble() * 3).put("lon", 3 + random.nextDouble() * 4);
                o.put("speedKmh", random.nextInt(130));
                o.put("coolantTempC", 70 + random.nextDouble() * 40);
                o.put("odometerKm", random.nextInt(900_000));
                if (random.nextBoolean()) {
                    o.putArray("faultCodes").add("P0217");
                }
                return o;
            }

            @Override
            public List<ObjectNode> edges(long i) {
                SplittableRandom r = new SplittableRandom(i);
                ObjectNode low = valid(i, r);
                low.put("speedKmh", 0).put("coolantTempC", -60).put("odometerKm", 0);
                ObjectNode high = valid(i, r);
                high.put("speedKmh", 400).put("coolantTempC", 200).put("odometerKm", 10_000_000);
                ObjectNode codes = valid(i, r);
                var arr = codes.putArray("faultCodes");
                for (int k = 0; k < 32; k++) {
                    arr.add("U3" + String.format("%03X", k));
                }
                ObjectNode eventId = valid(i, r);
                eventId.put("eventId", new java.util.UUID(run.hashCode(), i).toString().toUpperCase());
                return List.of(low, high, codes, eventId);
            }

            @Override
            public List<ObjectNode> broken(long i) {
                SplittableRandom r = new SplittableRandom(i);
                ObjectNode fast = valid(i, r);
                fast.put("speedKmh", 400.01);
                ObjectNode cold = valid(i, r);
                cold.put("coolantTempC", -60.5);
                ObjectNode speedText = valid(i, r);
                speedText.put("speedKmh", "80");
                ObjectNode code = valid(i, r);
                code.putArray("faultCodes").add("X0000");
                ObjectNode tooMany = valid(i, r);
                var arr = tooMany.putArray("faultCodes");
                for (int k = 0; k < 33; k++) {
                    arr.add("P0217");
                }
                ObjectNode eventId = valid(i, r);
                eventId.put("eventId", "not-a-uuid");
                ObjectNode lon = valid(i, r);
                lon.putObject("position").put("lat", 0).put("lon", 180.5);
                ObjectNode vehicle = valid(i, r);
                vehicle.put("vehicleId", "truck 1");
                return List.of(fast, cold, speedText, code, tooMany, eventId, lon, vehicle);
            }

            @Override
            public List<String> required() {
                return List.of("vehicleId", "occurredAt", "position", "speedKmh", "coolantTempC", "odometerKm");
            }

            @Override
            public boolean batches() {
                return false;
            }
        };
    }

    static Payloads.Shape parcelScans(String run) {
        return new Payloads.Shape() {
            @Override
            public String path(long i, SplittableRandom random) {
                return "/v1/parcels/fz-" + run + "-" + i + "/scans";
            }

            @Override
            public ObjectNode valid(long i, SplittableRandom random) {
                ObjectNode o = F.objectNode();
                o.put("occurredAt", Payloads.at(i));
                o.put("status", Payloads.pick(random, List.of("LABEL_CREATED", "RECEIVED_AT_HUB", "SORTED", "LOADED",
                        "IN_TRANSIT", "OUT_FOR_DELIVERY", "DELIVERED", "DELIVERY_FAILED", "RETURNED")));
                if (random.nextBoolean()) {
                    o.put("hubId", "hub-" + random.nextInt(20));
                }
                if (random.nextBoolean()) {
                    o.put("vehicleId", "truck-" + random.nextInt(40));
                }
                if (random.nextBoolean()) {
                    o.putObject("location").put("lat", 51.9).put("lon", 4.4);
                }
                if (random.nextBoolean()) {
                    o.put("promisedBy", Instant.parse(Payloads.at(i)).plus(2, ChronoUnit.DAYS).toString());
                }
                return o;
            }

            @Override
            public List<ObjectNode> edges(long i) {
                SplittableRandom r = new SplittableRandom(i);
                ObjectNode hub = valid(i, r);
                hub.put("hubId", "h".repeat(64));
                ObjectNode minimal = F.objectNode();
                minimal.put("occurredAt", Payloads.at(i)).put("status", "SORTED");
                return List.of(hub, minimal);
            }

            @Override
            public List<ObjectNode> broken(long i) {
                SplittableRandom r = new SplittableRandom(i);
                ObjectNode status = valid(i, r);
                status.put("status", "LOST_IN_SPACE");
                ObjectNode unknown = valid(i, r);
                unknown.put("status", "UNKNOWN");
                ObjectNode hub = valid(i, r);
                hub.put("hubId", "h".repeat(65));
                ObjectNode promised = valid(i, r);
                promised.put("promisedBy", "tomorrow");
                ObjectNode lat = valid(i, r);
                lat.putObject("location").put("lat", -91).put("lon", 0);
                return List.of(status, unknown, hub, promised, lat);
            }

            @Override
            public List<String> required() {
                return List.of("occurredAt", "status");
            }

            @Override
            public boolean batches() {
                return false;
            }
        };
    }

    /** {@code POST /v1/parcels/scans}: a scan as the path endpoint takes it, naming its parcel in the body; arrays are batches. */
    static Payloads.Shape parcelScanBatches(String run) {
        Payloads.Shape one = parcelScans(run);
        return new Payloads.Shape() {
            @Override
            public String path(long i, SplittableRandom random) {
                return "/v1/parcels/scans";
            }

            @Override
            public ObjectNode valid(long i, SplittableRandom random) {
                return withParcel(one.valid(i, random), i);
            }

            @Override
            public List<ObjectNode> edges(long i) {
                List<ObjectNode> edges = new java.util.ArrayList<>(one.edges(i).stream().map(o -> withParcel(o, i)).toList());
                String longest = "fzb-" + run + "-" + i;
                edges.add(withParcel(one.valid(i, new SplittableRandom(i)), i).put("parcelId", longest + "p".repeat(64 - longest.length())));
                return edges;
            }

            @Override
            public List<ObjectNode> broken(long i) {
                List<ObjectNode> broken = new java.util.ArrayList<>(one.broken(i).stream().map(o -> withParcel(o, i)).toList());
                SplittableRandom r = new SplittableRandom(i);
                broken.add(withParcel(one.valid(i, r), i).put("parcelId", "p".repeat(65)));
                broken.add(withParcel(one.valid(i, r), i).put("parcelId", "a b"));
                broken.add(withParcel(one.valid(i, r), i).put("parcelId", luhn("411111111111111")));
                broken.add((ObjectNode) withParcel(one.valid(i, r), i).set("parcelId", F.numberNode(7)));
                return broken;
            }

            @Override
            public List<String> required() {
                return List.of("parcelId", "occurredAt", "status");
            }

            @Override
            public boolean batches() {
                return true;
            }

            private ObjectNode withParcel(ObjectNode scan, long i) {
                return scan.put("parcelId", "fzb-" + run + "-" + i);
            }
        };
    }

    /** Appends the Luhn check digit. */
    static String luhn(String body) {
        int sum = 0;
        for (int k = 0; k < body.length(); k++) {
            int d = body.charAt(body.length() - 1 - k) - '0';
            if (k % 2 == 0) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
        }
        return body + ((10 - sum % 10) % 10);
    }

    private Shapes() {
    }
}
