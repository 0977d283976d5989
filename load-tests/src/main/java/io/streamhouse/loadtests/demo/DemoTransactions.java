package io.streamhouse.loadtests.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamhouse.domain.event.DecisionOutcome;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Card payments for the demo, the same for the same seed: mostly small everyday payments, with a share of large
 * ones (review), very large ones (block) and gambling merchants (review) planted at fixed rates. The expected
 * outcome follows the built-in rules, so a run can check every decision it gets back.
 */
public final class DemoTransactions {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[][] MERCHANTS = {
            {"m-grocer-rtm", "Verse Markt Rotterdam", "5411", "NL"},
            {"m-books-ams", "Boekhandel Amsterdam", "5942", "NL"},
            {"m-fuel-anr", "Tankstation Antwerpen", "5541", "BE"},
            {"m-jewel-anr", "Diamantkwartier", "5944", "BE"},
    };
    private static final String[] CASINO = {"m-casino-mla", "Golden Reel Valletta", "7995", "MT"};

    /** The payments of {@code seed}, the same ids and cards every time: {@link #generate(long, long, int, Instant)} with no run. */
    public static List<DemoTransaction> generate(long seed, int count, Instant start) {
        return generate(seed, 0, count, start);
    }

    /**
     * {@code count} payments from {@code seed}, starting at {@code start}, 250 ms apart. A {@code run} other than 0 (the
     * demo uses the second it started) goes into every transaction id and card number: the same seed run again gives
     * the same amounts, merchants and expected outcomes, on transaction ids ingest has not seen (a reused id with other
     * content is refused, 409) and on cards with no spend or velocity from the earlier run.
     */
    public static List<DemoTransaction> generate(long seed, long run, int count, Instant start) {
        SplittableRandom random = new SplittableRandom(seed);
        List<DemoTransaction> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            double roll = random.nextDouble();
            String[] merchant = MERCHANTS[random.nextInt(MERCHANTS.length)];
            BigDecimal amount;
            DecisionOutcome expected;
            if (roll < 0.05) {
                amount = money(random, 10_000, 30_000);
                expected = DecisionOutcome.BLOCK;
            } else if (roll < 0.15) {
                amount = money(random, 1_000, 9_999);
                expected = DecisionOutcome.REVIEW;
            } else if (roll < 0.20) {
                merchant = CASINO;
                amount = money(random, 5, 500);
                expected = DecisionOutcome.REVIEW;
            } else {
                amount = money(random, 1, 999);
                expected = DecisionOutcome.ALLOW;
            }
            String id = "demo-" + idPart(seed) + (run == 0 ? "" : "-" + idPart(run)) + "-" + i;
            ObjectNode body = JSON.createObjectNode();
            body.put("transactionId", id);
            body.put("occurredAt", start.plus(Duration.ofMillis(250L * i)).toString());
            // One card per payment: the demo checks single-payment rules, so no card may build up velocity or spend.
            body.putObject("card").put("number", cardNumber(seed + run * 100_003L, i));
            body.put("customerId", "c-" + (1 + random.nextInt(20)));
            ObjectNode m = body.putObject("merchant");
            m.put("id", merchant[0]).put("name", merchant[1]).put("mcc", merchant[2]).put("country", merchant[3]);
            body.put("amount", amount.toPlainString());
            body.put("currency", "EUR");
            body.put("channel", random.nextBoolean() ? "ECOMMERCE" : "CONTACTLESS");
            body.putObject("location").put("lat", 51.0 + random.nextDouble()).put("lon", 4.0 + random.nextDouble());
            out.add(new DemoTransaction(id, body, expected));
        }
        return out;
    }

    /**
     * A Luhn-valid 16-digit number in the 4000 00.. range, unique per (seed, index); tokenized by ingest, sent to
     * loopback only.
     */
    static String cardNumber(long seed, int index) {
        String body = "400000" + String.format("%09d", Math.floorMod(seed * 1_000_003L + index, 1_000_000_000L));
        int sum = 0;
        for (int i = 0; i < body.length(); i++) {
            int d = body.charAt(body.length() - 1 - i) - '0';
            if (i % 2 == 0) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
        }
        return body + ((10 - sum % 10) % 10);
    }

    private static BigDecimal money(SplittableRandom random, int min, int max) {
        long cents = (long) min * 100 + random.nextLong((long) (max - min) * 100);
        return BigDecimal.valueOf(cents, 2).setScale(2, RoundingMode.UNNECESSARY);
    }

    private DemoTransactions() {
    }

    /**
     * The seed as it appears in a transaction id: base 36. A seed written in decimal is often 13 digits (the drills'
     * seeds come from the clock), and one in ten such numbers passes the Luhn check, so ingest refused every payment
     * of such a run as a transaction id holding a card number (422).
     */
    static String idPart(long seed) {
        return Long.toString(seed, 36);
    }
}
