package io.streamhouse.loadtests.generator;

/**
 * The card number (PAN) the HTTP target sends for a generated card; ingest tokenizes it, so the PAN itself never
 * reaches a topic. The generator's own events carry tokens ({@code tok_...}) instead, because they bypass ingest.
 *
 * <p>Mapping: {@code 400000} + three digits of the seed ({@code floorMod(seed, 1000)}) + the card's six-digit index +
 * one Luhn check digit = 16 digits. The 4000 00 range is the one card-scheme sandboxes use for test cards; these
 * numbers are for load tests only. The mapping is also written next to the output ({@code cards.jsonl}) so that
 * detections made on ingest's tokens can be joined back to the ground truth.
 */
public final class TestPans {
    public static final int MAX_CARDS = 1_000_000;

    public static String pan(long seed, int cardIndex) {
        if (cardIndex < 0 || cardIndex >= MAX_CARDS) {
            throw new IllegalArgumentException("card index must be in [0, " + MAX_CARDS + "), was " + cardIndex);
        }
        String body = String.format("400000%03d%06d", Math.floorMod(seed, 1000L), cardIndex);
        return body + luhnCheckDigit(body);
    }

    static int luhnCheckDigit(String body) {
        int sum = 0;
        boolean doubleIt = true;
        for (int i = body.length() - 1; i >= 0; i--) {
            int d = body.charAt(i) - '0';
            if (doubleIt) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
            doubleIt = !doubleIt;
        }
        return (10 - sum % 10) % 10;
    }

    public static boolean luhnValid(String digits) {
        if (digits == null || !digits.matches("\\d{12,19}")) {
            return false;
        }
        return luhnCheckDigit(digits.substring(0, digits.length() - 1)) == digits.charAt(digits.length() - 1) - '0';
    }

    private TestPans() {
    }
}
