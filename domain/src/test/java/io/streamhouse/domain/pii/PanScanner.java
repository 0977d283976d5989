package io.streamhouse.domain.pii;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PAN scan of the tests, written apart from {@link CardNumbers} (a bug in the masking must not hide itself in the
 * scan): every run of digits grouped by single spaces or dashes, every group and every contiguous span of groups
 * printed as cards are (4-4-4-4 and kin, 4-6-5) holding 13-19 digits, Luhn-checked. Not card numbers: UUIDs, runs of
 * one repeated digit, and the digits inside a hex digest (a token of exactly 32, 40, 64 or 128 hex characters with a
 * letter among them, such as a request fingerprint's SHA-256: one in about a hundred holds a Luhn-valid run of 13 or
 * more digits). A hit names where it was found and shows the digits with all but the last four masked, so a failing
 * test does not print the PAN it found.
 */
public final class PanScanner {
    private static final Pattern RUN = Pattern.compile("[0-9]+(?:[ -][0-9]+)*");
    private static final Pattern SEPARATOR = Pattern.compile("[ -]");
    private static final Pattern UUID = Pattern.compile("(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    /** MD5, SHA-1, SHA-256 and SHA-512 in hex: the whole token, not a part of a longer run of hex characters. */
    private static final Pattern DIGEST = Pattern.compile(
            "(?i)(?<![0-9a-f])(?=[0-9a-f]*[a-f])(?:[0-9a-f]{128}|[0-9a-f]{64}|[0-9a-f]{40}|[0-9a-f]{32})(?![0-9a-f])");

    public record Hit(String where, String masked, String context) {
        @Override
        public String toString() {
            return where + ": " + masked + " in «" + context + "»";
        }
    }

    private final List<Hit> hits = new ArrayList<>();
    private long scannedTexts;
    private long scannedBytes;

    /** Binary data (a record's key, value or header), read byte for byte: a run may carry one stray digit at its ends. */
    public void scan(String where, byte[] bytes) {
        if (bytes != null) {
            scan(where, new String(bytes, StandardCharsets.ISO_8859_1), true);
        }
    }

    /** Text (an answer, a log). */
    public void scan(String where, String text) {
        scan(where, text, false);
    }

    private void scan(String where, String text, boolean binary) {
        if (text == null) {
            return;
        }
        scannedTexts++;
        scannedBytes += text.length();
        // A UUID's digit groups are not a card number (8-4-4-4-12 is not how one is written): blanked first.
        text = UUID.matcher(text).replaceAll(u -> u.group().replaceAll("[0-9]", "u"));
        text = DIGEST.matcher(text).replaceAll(d -> d.group().replaceAll("[0-9]", "h"));
        Matcher run = RUN.matcher(text);
        while (run.find()) {
            String[] groups = SEPARATOR.split(run.group());
            for (int a = 0; a < groups.length; a++) {
                for (int b = a; b < groups.length; b++) {
                    // In binary data also without one digit at the run's outer ends (an Avro length prefix can be one).
                    for (int front = 0; front <= (binary && a == 0 ? 1 : 0); front++) {
                        for (int back = 0; back <= (binary && b == groups.length - 1 ? 1 : 0); back++) {
                            String[] span = java.util.Arrays.copyOfRange(groups, a, b + 1);
                            span[0] = span[0].substring(Math.min(front, span[0].length()));
                            span[span.length - 1] = span[span.length - 1].substring(0, Math.max(0, span[span.length - 1].length() - back));
                            String digits = String.join("", span);
                            if (digits.length() < 13 || digits.length() > 19 || span[0].isEmpty() || span[span.length - 1].isEmpty()
                                    || (span.length > 1 && !printedAsACard(span)) || !luhnValid(digits) || digits.matches("(\\d)\\1*")) {
                                continue;
                            }
                            int from = Math.max(0, run.start() - 40);
                            int to = Math.min(text.length(), run.end() + 40);
                            String context = text.substring(from, to).replaceAll("[0-9]", "9").replaceAll("\\p{Cntrl}", ".");
                            hits.add(new Hit(where, "*".repeat(digits.length() - 4) + digits.substring(digits.length() - 4), context));
                        }
                    }
                }
            }
        }
    }

    /** Groups as cards are printed: fours then one to four (4-4-4-1 .. 4-4-4-4-3), or 4-6-5 / 4-6-4. */
    static boolean printedAsACard(String[] groups) {
        String shape = java.util.Arrays.stream(groups).map(g -> Integer.toString(g.length())).collect(java.util.stream.Collectors.joining("-"));
        return shape.matches("4-4-4-[1-4]|4-4-4-4-[1-4]|4-6-[45]");
    }

    public static boolean luhnValid(String digits) {
        int sum = 0;
        for (int i = 0; i < digits.length(); i++) {
            int d = digits.charAt(digits.length() - 1 - i) - '0';
            sum += i % 2 == 0 ? d : (d * 2 > 9 ? d * 2 - 9 : d * 2);
        }
        return sum % 10 == 0;
    }

    public List<Hit> hits() {
        return List.copyOf(hits);
    }

    public long scannedTexts() {
        return scannedTexts;
    }

    public long scannedBytes() {
        return scannedBytes;
    }
}
