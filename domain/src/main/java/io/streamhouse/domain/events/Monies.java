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
        BigDecimal scaled;
        try {
            scaled = amount.setScale(SCALE, RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("amount " + amount.toPlainString() + " has more than " + SCALE + " decimals");
        }
        if (scaled.precision() > PRECISION) {
            throw new IllegalArgumentException("amount " + amount.toPlainString() + " has more than " + PRECISION + " digits");
        }
        return Money.newBuilder().setAmount(scaled).setCurrency(currency).build();
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
