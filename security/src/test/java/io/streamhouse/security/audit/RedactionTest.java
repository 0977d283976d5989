package io.streamhouse.security.audit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RedactionTest {

    @Test
    void masksCardNumbersAsTheyAreWritten() {
        assertThat(Redaction.clean("SELECT * FROM t WHERE pan = '4111111111111111'"))
                .isEqualTo("SELECT * FROM t WHERE pan = '[pan]'");
        assertThat(Redaction.clean("card 4111 1111 1111 1111 and 5500-0000-0000-0004")).isEqualTo("card [pan] and [pan]");
    }

    @Test
    void keepsIdsAndShortNumbers() {
        assertThat(Redaction.clean("tx-20261202-000123 limit 1000 order 123456789012")).isEqualTo("tx-20261202-000123 limit 1000 order 123456789012");
    }

    @Test
    void masksTokens() {
        assertThat(Redaction.clean("token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln here")).isEqualTo("token [token] here");
        assertThat(Redaction.clean("Authorization: Bearer not.a-token")).isEqualTo("Authorization: Bearer [token]");
    }

    @Test
    void truncates() {
        assertThat(Redaction.clean("x".repeat(2000))).hasSize(Redaction.MAX_LENGTH + 1).endsWith("…");
        assertThat(Redaction.clean(null)).isNull();
    }
}
