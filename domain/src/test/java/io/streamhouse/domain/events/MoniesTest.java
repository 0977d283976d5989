package io.streamhouse.domain.events;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MoniesTest {
    @Test
    void keepsExactDecimalsAtWireScale() {
        assertThat(Monies.of("12.5", "EUR").getAmount()).isEqualByComparingTo("12.5000").hasScaleOf(4);
        assertThat(Monies.of(new BigDecimal("0.001"), "BHD").getAmount()).isEqualTo(new BigDecimal("0.0010"));
    }

    @Test
    void refusesWhatItCannotKeepExactly() {
        assertThatThrownBy(() -> Monies.of("0.00001", "EUR")).hasMessageContaining("more than 4 decimals");
        assertThatThrownBy(() -> Monies.of("1", "eur")).hasMessageContaining("currency");
        assertThatThrownBy(() -> Monies.of("1", "XYZ")).hasMessageContaining("not an ISO 4217");
        assertThatThrownBy(() -> Monies.of("12,50", "EUR")).hasMessageContaining("not a decimal");
        assertThatThrownBy(() -> Monies.of("1000000000000000", "EUR")).hasMessageContaining("more than 15 digits before");
        assertThat(Monies.of("999999999999999.9999", "EUR").getAmount()).hasScaleOf(4).isEqualByComparingTo("999999999999999.9999");
        assertThat(Monies.of("7.500000", "EUR").getAmount()).isEqualByComparingTo("7.5");
    }

    @Test
    void refusesExtremeExponentsWithoutExpandingThem() {
        // Each would take a billion digits written out; refused from the exponent alone, and named as written.
        assertThatThrownBy(() -> Monies.of("1e999999999", "EUR")).hasMessageContaining("1E+999999999");
        assertThatThrownBy(() -> Monies.of("1e-999999999", "EUR")).hasMessageContaining("more than 4 decimals");
        assertThatThrownBy(() -> Monies.of(new BigDecimal("-5E+2147483647"), "EUR")).hasMessageContaining("digits before");
    }
}
