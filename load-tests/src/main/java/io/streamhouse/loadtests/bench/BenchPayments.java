package io.streamhouse.loadtests.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.SplittableRandom;

/**
 * Card payments for the benchmarks: everyday amounts at a handful of merchants, four consecutive payments per card
 * (so each decision reads and writes card state that already holds payments, without the card ever reaching the
 * velocity thresholds). Transaction ids carry the run id, so runs never collide with earlier ones on the same log.
 */
final class BenchPayments {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[][] MERCHANTS = {
            {"m-grocer-rtm", "Verse Markt Rotterdam", "5411", "NL"},
            {"m-books-ams", "Boekhandel Amsterdam", "5942", "NL"},
            {"m-fuel-anr", "Tankstation Antwerpen", "5541", "BE"},
    };

    private final String runId;
    private final long seed;

    BenchPayments(String runId, long seed) {
        this.runId = runId;
        this.seed = seed;
    }

    String transactionId(String phase, long i) {
        return "bench-" + runId + "-" + phase + "-" + i;
    }

    /** The JSON body of payment {@code i} of a phase, with event time {@code at}. */
    byte[] body(String phase, long i, Instant at) {
        SplittableRandom random = new SplittableRandom(seed ^ (i * 0x9E3779B97F4A7C15L) ^ phase.hashCode());
        String[] merchant = MERCHANTS[random.nextInt(MERCHANTS.length)];
        ObjectNode body = JSON.createObjectNode();
        body.put("transactionId", transactionId(phase, i));
        body.put("occurredAt", at.toString());
        body.putObject("card").put("number", cardNumber(seed + phase.hashCode(), (int) (i / 4)));
        body.put("customerId", "bench-c-" + (i / 4));
        body.putObject("merchant").put("id", merchant[0]).put("name", merchant[1]).put("mcc", merchant[2])
                .put("country", merchant[3]);
        body.put("amount", String.format(java.util.Locale.ROOT, "%d.%02d", 1 + random.nextInt(200), random.nextInt(100)));
        body.put("currency", "EUR");
        body.put("channel", "ECOMMERCE");
        try {
            return JSON.writeValueAsBytes(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A Luhn-valid 16-digit test number in the 4000 00.. range; sent to loopback only and tokenized by ingest. */
    static String cardNumber(long seed, int index) {
        String digits = "400000" + String.format("%09d", Math.floorMod(seed * 1_000_003L + index, 1_000_000_000L));
        int sum = 0;
        for (int k = 0; k < digits.length(); k++) {
            int d = digits.charAt(digits.length() - 1 - k) - '0';
            if (k % 2 == 0) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
        }
        return digits + ((10 - sum % 10) % 10);
    }
}
