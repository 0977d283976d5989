package io.streamhouse.domain.pii;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds and masks card numbers (PANs) in any text: 13 to 19 digits that pass the Luhn check, written in one run or
 * in groups separated by one space or dash ({@code 4111 1111 1111 1111}, {@code 4111-1111-1111-1111}). Every
 * contiguous span of such groups is checked, so a PAN next to other numbers ({@code "qty 3 4111111111111111"}) is
 * found too. Letters around the digits do not matter ({@code x4111111111111111y} is found). Runs of one repeated
 * digit (zero padding) and the digits of a UUID are not card numbers. About one in ten random 13-19 digit numbers passes the Luhn check, so
 * masking can hit an id or a timestamp that only looks like a card: on the safe side, by design.
 *
 * <p>Used at every edge where outside text could reach a topic, a log line or an error: free-text fields, dead-letter
 * payloads and reasons, problem documents. Pure.
 */
public final class CardNumbers {
    /** What a masked card number reads as. */
    public static final String MASK = "[pan]";
    static final int MIN_DIGITS = 13;
    static final int MAX_DIGITS = 19;
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    /** A found card number: {@code [start, end)} in the text, and its digits. */
    public record Found(int start, int end, String digits) {
    }

    /** Whether {@code text} holds a card number anywhere. */
    public static boolean contains(CharSequence text) {
        return text != null && !find(text).isEmpty();
    }

    /** {@code text} with every card number replaced by {@link #MASK}; the same instance when there is none. */
    public static String mask(String text) {
        if (text == null) {
            return null;
        }
        List<Found> found = find(text);
        if (found.isEmpty()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int at = 0;
        for (Found f : found) {
            if (f.start() < at) {
                // overlaps the previous one: widen it
                continue;
            }
            out.append(text, at, f.start()).append(MASK);
            at = f.end();
        }
        return out.append(text, at, text.length()).toString();
    }

    /**
     * Bytes with every digit of every card number replaced by {@code *}, all other bytes untouched and the length
     * kept, so that framed data (an Avro string's length prefix, a JSON document) stays readable; read byte for byte
     * as ISO-8859-1, so a UTF-8 payload keeps its multi-byte characters. The same array when there is none.
     */
    public static byte[] mask(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        List<Found> found = find(new String(bytes, StandardCharsets.ISO_8859_1));
        if (found.isEmpty()) {
            return bytes;
        }
        byte[] out = bytes.clone();
        for (Found f : found) {
            for (int k = f.start(); k < f.end(); k++) {
                if (isDigit((char) out[k])) {
                    out[k] = '*';
                }
            }
        }
        return out;
    }

    /** Every card number in {@code text}, by start; overlapping spans are merged into the widest. */
    public static List<Found> find(CharSequence input) {
        CharSequence text = withoutUuids(input);
        List<Found> found = new ArrayList<>();
        int n = text.length();
        int i = 0;
        while (i < n) {
            if (!isDigit(text.charAt(i))) {
                i++;
                continue;
            }
            // A run: digit groups joined by single separators.
            List<int[]> groups = new ArrayList<>();
            int j = i;
            while (true) {
                int start = j;
                while (j < n && isDigit(text.charAt(j))) {
                    j++;
                }
                groups.add(new int[]{start, j});
                if (j + 1 < n && (text.charAt(j) == ' ' || text.charAt(j) == '-') && isDigit(text.charAt(j + 1))) {
                    j++;
                    continue;
                }
                break;
            }
            addSpans(text, groups, found);
            i = j;
        }
        return merged(found);
    }

    private static void addSpans(CharSequence text, List<int[]> groups, List<Found> found) {
        for (int a = 0; a < groups.size(); a++) {
            StringBuilder digits = new StringBuilder();
            for (int b = a; b < groups.size(); b++) {
                digits.append(text, groups.get(b)[0], groups.get(b)[1]);
                if (digits.length() > MAX_DIGITS) {
                    break;
                }
                if (digits.length() >= MIN_DIGITS && luhn(digits) && !oneDigitRepeated(digits)) {
                    found.add(new Found(groups.get(a)[0], groups.get(b)[1], digits.toString()));
                }
            }
        }
    }

    private static List<Found> merged(List<Found> found) {
        if (found.size() < 2) {
            return found;
        }
        found.sort((x, y) -> x.start() != y.start() ? Integer.compare(x.start(), y.start()) : Integer.compare(y.end(), x.end()));
        List<Found> out = new ArrayList<>();
        for (Found f : found) {
            Found last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && f.start() < last.end()) {
                if (f.end() > last.end()) {
                    out.set(out.size() - 1, new Found(last.start(), f.end(), last.digits()));
                }
            } else {
                out.add(f);
            }
        }
        return out;
    }

    /**
     * The text with the digits of every UUID ({@code 8-4-4-4-12} hex) turned into letters, index for index: a UUID's
     * digit groups joined by its dashes would otherwise make a Luhn-valid "card number" about once in a thousand
     * event ids, and a UUID cannot hold a card number as people write one (its groups are 8-4-4-4-12).
     */
    static CharSequence withoutUuids(CharSequence text) {
        Matcher m = UUID.matcher(text);
        if (!m.find()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text);
        do {
            for (int k = m.start(); k < m.end(); k++) {
                if (isDigit(out.charAt(k))) {
                    out.setCharAt(k, 'u');
                }
            }
        } while (m.find());
        return out;
    }

    /** The Luhn (mod 10) check over ASCII digits. */
    public static boolean luhn(CharSequence digits) {
        int sum = 0;
        boolean twice = false;
        for (int k = digits.length() - 1; k >= 0; k--) {
            int d = digits.charAt(k) - '0';
            if (d < 0 || d > 9) {
                return false;
            }
            if (twice) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
            twice = !twice;
        }
        return sum % 10 == 0;
    }

    private static boolean oneDigitRepeated(CharSequence digits) {
        for (int k = 1; k < digits.length(); k++) {
            if (digits.charAt(k) != digits.charAt(0)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private CardNumbers() {
    }
}
