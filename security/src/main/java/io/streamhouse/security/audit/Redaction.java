package io.streamhouse.security.audit;

import java.util.regex.Pattern;

/**
 * What an audit event may say: every text it carries passes through here, so neither a card number nor a credential
 * reaches the trail whatever a caller typed (SQL text, a path, a tool argument). Masks runs of 13-19 digits (and
 * a PAN as people write it, grouped by spaces or dashes, too), JSON Web Tokens (three base64url parts, the first {@code eyJ})
 * and whatever follows {@code Bearer}; then truncates. JDK only, pure.
 */
public final class Redaction {
    public static final String PAN_MASK = "[pan]";
    public static final String TOKEN_MASK = "[token]";
    /** Longest text kept (the SQL of a snapshot query, a reason). */
    public static final int MAX_LENGTH = 1000;

    /** 13-19 digits in a row (any: an epoch in milliseconds is masked too, on the safe side), or as people group a
     * card number: 4-4-4-4(-1..3) or 4-6-5, with spaces or dashes. An id such as {@code tx-20261202-000123} is kept. */
    private static final Pattern PAN = Pattern.compile(
            "(?<![0-9])(?:[0-9]{13,19}|[0-9]{4}([ -])[0-9]{4}\\1[0-9]{4}\\1[0-9]{4}(?:\\1[0-9]{1,3})?|[0-9]{4}([ -])[0-9]{6}\\2[0-9]{5})(?![0-9])");
    private static final Pattern JWT = Pattern.compile("eyJ[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]*");
    private static final Pattern BEARER = Pattern.compile("(?i)(bearer\\s+)\\S+");

    public static String clean(String text) {
        return clean(text, MAX_LENGTH);
    }

    public static String clean(String text, int maxLength) {
        if (text == null) {
            return null;
        }
        String masked = BEARER.matcher(JWT.matcher(PAN.matcher(text).replaceAll(PAN_MASK)).replaceAll(TOKEN_MASK))
                .replaceAll("$1" + TOKEN_MASK);
        return masked.length() <= maxLength ? masked : masked.substring(0, maxLength) + "…";
    }

    private Redaction() {
    }
}
