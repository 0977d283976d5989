package io.streamhouse.domain.events;

import io.streamhouse.domain.event.Money;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Currency;
import java.util.regex.Pattern;

/**
 * Exact money at the wire scale (4). An amount with more decimals than the wire keeps is refused, never rounded:
 * silently losing a fraction of a cent is a bug in a payments system.
 */
public final class Monies {
    public static final int SCALE = 4;
    public static final int PRECISION = 19;
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    public static Money of(BigDecimal amount, String currency) {
        if (amount == null) {
            throw new IllegalArgumentException("amount is required");
        }
        if (currency == null || !CURRENCY.matcher(currency).matches()) {
            throw new IllegalArgumentException("currency must be an ISO 4217 code of three upper-case letters, was " + currency);
        }
        try {
            Currency.getInstance(currency);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("currency " + currency + " is not an ISO 4217 currency");
        }
        // Checked on the number as written, before any rescaling: "1e999999999" is a valid BigDecimal whose plain form
        // has a billion digits, and setScale or toPlainString on it would exhaust the heap.
        if ((long) amount.precision() - amount.scale() > PRECISION - SCALE) { // long: the difference can overflow an int
            throw new IllegalArgumentException("amount " + shown(amount) + " has more than " + (PRECISION - SCALE)
                    + " digits before the decimal point");
        }
        if (amount.stripTrailingZeros().scale() > SCALE) {
            throw new IllegalArgumentException("amount " + shown(amount) + " has more than " + SCALE + " decimals");
        }
        BigDecimal scaled = amount.setScale(SCALE, RoundingMode.UNNECESSARY);
        return Money.newBuilder().setAmount(scaled).setCurrency(currency).build();
    }

    /** The amount as a client would recognise it, without expanding an extreme exponent into its digits. */
    private static String shown(BigDecimal amount) {
        return Math.abs((long) amount.scale()) > 50 ? amount.toString() : amount.toPlainString();
    }

    public static Money of(String amount, String currency) {
        try {
            return of(new BigDecimal(amount), currency);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("amount '" + amount + "' is not a decimal number");
        }
    }

    private Monies() {
    }
}
