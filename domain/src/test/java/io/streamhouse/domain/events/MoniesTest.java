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
        assertThatThrownBy(() -> Monies.of("1000000000000000", "EUR")).hasMessageContaining("19 digits");
    }
}
