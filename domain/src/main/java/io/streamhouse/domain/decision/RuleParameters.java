package io.streamhouse.domain.decision;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;

/**
 * Reading a rule definition's {@code parameters} map, shared by the decision rules ({@link Rules}) and the CEP
 * pattern settings: every bad value is an {@link InvalidRuleException} naming {@code parameters.<name>}.
 */
public final class RuleParameters {

    public static String required(Map<String, String> p, String name) {
        String value = p.get(name);
        if (value == null || value.isBlank()) {
            throw new InvalidRuleException("parameters." + name, "is required");
        }
        return value.trim();
    }

    public static BigDecimal positiveDecimal(Map<String, String> p, String name) {
        String raw = required(p, name);
        try {
            BigDecimal value = new BigDecimal(raw);
            if (value.signum() <= 0) {
                throw new InvalidRuleException("parameters." + name, "must be positive, was " + raw);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new InvalidRuleException("parameters." + name, "'" + raw + "' is not a decimal number");
        }
    }

    public static double positiveDouble(Map<String, String> p, String name) {
        String raw = required(p, name);
        try {
            double value = Double.parseDouble(raw);
            if (!(value > 0) || Double.isInfinite(value)) {
                throw new InvalidRuleException("parameters." + name, "must be a positive number, was " + raw);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new InvalidRuleException("parameters." + name, "'" + raw + "' is not a number");
        }
    }

    public static int positiveInt(Map<String, String> p, String name) {
        String raw = required(p, name);
        try {
            int value = Integer.parseInt(raw);
            if (value < 1) {
                throw new InvalidRuleException("parameters." + name, "must be at least 1, was " + raw);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new InvalidRuleException("parameters." + name, "'" + raw + "' is not a whole number");
        }
    }

    public static Duration positiveDuration(Map<String, String> p, String name) {
        String raw = required(p, name);
        try {
            Duration d = Duration.parse(raw);
            if (d.isNegative() || d.isZero()) {
                throw new InvalidRuleException("parameters." + name, "must be a positive duration, was " + raw);
            }
            return d;
        } catch (DateTimeParseException e) {
            throw new InvalidRuleException("parameters." + name, "'" + raw + "' is not an ISO-8601 duration like PT10M or P7D");
        }
    }

    private RuleParameters() {
    }
}
