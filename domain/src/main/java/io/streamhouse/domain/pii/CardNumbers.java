package io.streamhouse.domain.pii;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds and masks card numbers (PANs) in any text: 13 to 19 digits that pass the Luhn check, written in one run or
 * grouped as cards are printed, by single spaces or dashes: 4-4-4-4 (and 4-4-4-1 to 4-4-4-4-3) or 4-6-5 / 4-6-4
 * ({@code 4111 1111 1111 1111}, {@code 3782-822463-10005}). Every run of digits and every such grouping inside a
 * longer run is checked, so a PAN next to other numbers ({@code "qty 3 4111111111111111"}) is found too, and letters
 * around the digits do not matter ({@code x4111111111111111y}). Not card numbers: other groupings (an id such as
 * {@code tx-20261202-000123}), runs of one repeated digit (zero padding), the digits of a UUID, runs of 20 or more
 * digits. In binary data ({@link #mask(byte[])}) a run may also carry one stray digit at either end, since an Avro
 * string's length prefix (or the next field's byte) can be an ASCII digit. About one random 13-19 digit number in ten
 * passes the Luhn check, so an id or a timestamp that only looks like a card is masked too: on the safe side.
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
        return text != null && !find(text, false).isEmpty();
    }

    /** {@code text} with every card number replaced by {@link #MASK}; the same instance when there is none. */
    public static String mask(String text) {
        if (text == null) {
            return null;
        }
        List<Found> found = find(text, false);
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
     * {@code text} with every digit of every card number replaced by {@code *}, its length and separators kept
     * ({@code "4111 1111 1111 1111"} reads {@code "**** **** **** ****"}); the same instance when there is none. For
     * values inside framed data whose length must not change.
     */
    public static String maskDigits(String text) {
        if (text == null) {
            return null;
        }
        List<Found> found = find(text, false);
        if (found.isEmpty()) {
            return text;
        }
        char[] out = text.toCharArray();
        for (Found f : found) {
            for (int k = f.start(); k < f.end(); k++) {
                if (isDigit(out[k])) {
                    out[k] = '*';
                }
            }
        }
        return new String(out);
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
        List<Found> found = find(new String(bytes, StandardCharsets.ISO_8859_1), true);
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
    public static List<Found> find(CharSequence text) {
        return find(text, false);
    }

    /** @param binary whether {@code input} is binary data read as text (one stray digit allowed at a run's ends) */
    public static List<Found> find(CharSequence input, boolean binary) {
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
            addSpans(text, groups, binary, found);
            i = j;
        }
        return merged(found);
    }

    /**
     * Every group alone and every contiguous span of groups shaped like a printed card number; in binary data also
     * without one digit at the run's outer ends.
     */
    private static void addSpans(CharSequence text, List<int[]> groups, boolean binary, List<Found> found) {
        int last = groups.size() - 1;
        for (int a = 0; a <= last; a++) {
            for (int b = a; b <= last; b++) {
                for (int trimStart = 0; trimStart <= (binary && a == 0 ? 1 : 0); trimStart++) {
                    for (int trimEnd = 0; trimEnd <= (binary && b == last ? 1 : 0); trimEnd++) {
                        int[] sizes = new int[b - a + 1];
                        for (int g = a; g <= b; g++) {
                            sizes[g - a] = groups.get(g)[1] - groups.get(g)[0];
                        }
                        sizes[0] -= trimStart;
                        sizes[sizes.length - 1] -= trimEnd;
                        if (sizes[0] <= 0 || sizes[sizes.length - 1] <= 0 || (sizes.length > 1 && !cardShape(sizes))) {
                            continue;
                        }
                        int start = groups.get(a)[0] + trimStart;
                        int end = groups.get(b)[1] - trimEnd;
                        StringBuilder digits = new StringBuilder(MAX_DIGITS + 1);
                        for (int k = start; k < end && digits.length() <= MAX_DIGITS; k++) {
                            if (isDigit(text.charAt(k))) {
                                digits.append(text.charAt(k));
                            }
                        }
                        if (digits.length() >= MIN_DIGITS && digits.length() <= MAX_DIGITS && luhn(digits)
                                && !oneDigitRepeated(digits)) {
                            found.add(new Found(start, end, digits.toString()));
                        }
                    }
                }
            }
        }
    }

    /** 4-4-4-1 up to 4-4-4-4-3 (fours, then a last group of one to four), 4-6-5 or 4-6-4. */
    static boolean cardShape(int[] sizes) {
        int n = sizes.length;
        if (n == 3 && sizes[0] == 4 && sizes[1] == 6 && (sizes[2] == 5 || sizes[2] == 4)) {
            return true;
        }
        if (n < 4 || n > 5 || sizes[n - 1] < 1 || sizes[n - 1] > 4) {
            return false;
        }
        for (int k = 0; k < n - 1; k++) {
            if (sizes[k] != 4) {
                return false;
            }
        }
        return true;
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
