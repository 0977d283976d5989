package io.streamhouse.domain.pii;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class CardNumbersTest {
    static final String VISA = "4111111111111111";
    static final String AMEX = "378282246310005";

    @Test
    void masksACardNumberHoweverItIsWritten() {
        assertThat(CardNumbers.mask("card " + VISA + " ok")).isEqualTo("card [pan] ok");
        assertThat(CardNumbers.mask("4111 1111 1111 1111")).isEqualTo("[pan]");
        assertThat(CardNumbers.mask("4111-1111-1111-1111!")).isEqualTo("[pan]!");
        assertThat(CardNumbers.mask("x" + AMEX + "y")).isEqualTo("x[pan]y");
        assertThat(CardNumbers.mask("qty 3 " + VISA)).as("next to another number").isEqualTo("qty 3 [pan]");
        assertThat(CardNumbers.mask("3782-822463-10005")).as("an Amex as printed").isEqualTo("[pan]");
        assertThat(CardNumbers.mask("4222 2222 2222 2")).as("13 digits as printed").isEqualTo("[pan]");
        assertThat(CardNumbers.mask("{\"n\":\"" + VISA + "\",\"m\":\"" + AMEX + "\"}")).isEqualTo("{\"n\":\"[pan]\",\"m\":\"[pan]\"}");
    }

    @Test
    void keepsWhatIsNotACardNumber() {
        String text = "tx-20261202-000123 at 2026-12-02 23:54:22,123, 4111111111111112 (Luhn fails), 0000000000000000, "
                + "4111-1111-11111111 and 411 1111 1111 1111 (not printed as a card), 8" + VISA + " (a stray digit, text), "
                + "411111111111 (12 digits), 41111111111111111111 (20 digits: no span of it passes)";
        assertThat(CardNumbers.mask(text)).isSameAs(text);
        // 1234-5678-9012-3452 alone is a card as printed, and Luhn-valid: inside a UUID it is not a card number.
        String uuid = "event dcf91234-5678-9012-3452-ab9eccab91cd done";
        assertThat(CardNumbers.contains("1234-5678-9012-3452")).isTrue();
        assertThat(CardNumbers.mask(uuid)).isSameAs(uuid);
        var scanner = new PanScanner();
        scanner.scan("uuid", uuid);
        assertThat(scanner.hits()).isEmpty();
        assertThat(CardNumbers.contains(text)).isFalse();
    }

    @Test
    void masksBytesLeavingOtherBytesAsTheyWere() {
        byte[] payload = ("{\"name\":\"Café " + VISA + "\"}").getBytes(StandardCharsets.UTF_8);
        assertThat(new String(CardNumbers.mask(payload), StandardCharsets.UTF_8)).isEqualTo("{\"name\":\"Café ****************\"}");
        assertThat(new String(CardNumbers.mask("a 4111-1111-1111-1111 b".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8))
                .as("the length is kept").isEqualTo("a ****-****-****-**** b");
        byte[] clean = "{\"ok\":1}".getBytes(StandardCharsets.UTF_8);
        assertThat(CardNumbers.mask(clean)).isSameAs(clean);
    }

    @Test
    void maskDigitsKeepsTheLengthAndTheSeparators() {
        assertThat(CardNumbers.maskDigits("Card 4111 1111 1111 1111, tel 0612345678")).isEqualTo("Card **** **** **** ****, tel 0612345678");
        assertThat(CardNumbers.maskDigits(VISA + "@example.com")).isEqualTo("****************@example.com");
        String clean = "order o-20260302-000123";
        assertThat(CardNumbers.maskDigits(clean)).isSameAs(clean);
        assertThat(CardNumbers.maskDigits(null)).isNull();
    }

    @Test
    void aCardNumberAtTheStartOfAnAvroStringIsFoundDespiteItsLengthPrefix() {
        // "5555555555554444@example.com" is 28 characters: its Avro length prefix is zigzag(28) = 56 = '8'.
        byte[] avro = new byte[]{0x02, 56, '5', '5', '5', '5', '5', '5', '5', '5', '5', '5', '5', '5', '4', '4', '4', '4',
                '@', 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o', 'm'};
        assertThat(new String(CardNumbers.mask(avro), StandardCharsets.ISO_8859_1)).endsWith("8****************@example.com");
        assertThat(new String(CardNumbers.mask(("4111111111111111" + "7").getBytes(StandardCharsets.ISO_8859_1)), StandardCharsets.ISO_8859_1))
                .as("a stray digit after it").startsWith("****************");
        var scanner = new PanScanner();
        scanner.scan("avro", avro);
        assertThat(scanner.hits()).hasSize(1);
    }

    @Test
    void theTestScannerAgreesWithTheMasking() {
        var scanner = new PanScanner();
        scanner.scan("plain", "a " + VISA + " b 4111 1111 1111 1111 c " + AMEX);
        scanner.scan("masked", CardNumbers.mask("a " + VISA + " b 4111 1111 1111 1111 c " + AMEX));
        assertThat(scanner.hits()).extracting(PanScanner.Hit::where).containsExactly("plain", "plain", "plain");
        assertThat(scanner.hits().toString()).doesNotContain(VISA).doesNotContain(AMEX);
    }

    @Test
    void theDigitsOfAHexDigestAreNotACardNumberButACardNumberBesideOneIs() {
        // A SHA-256 in hex whose 16-digit run is Luhn-valid (4111111111111111), as a request fingerprint header can be.
        String digest = "d0cc1e" + "4111111111111111" + "d3c2f7aee1" + "ab".repeat(16);
        assertThat(digest).hasSize(64);
        var scanner = new PanScanner();
        scanner.scan("digest", digest.getBytes(StandardCharsets.ISO_8859_1));
        scanner.scan("digest as text", "fingerprint=" + digest + ";");
        assertThat(scanner.hits()).isEmpty();
        scanner.scan("one hex character longer", digest + "a");
        scanner.scan("beside it", digest + " 4111111111111111");
        assertThat(scanner.hits()).extracting(PanScanner.Hit::where)
                .containsExactly("one hex character longer", "beside it");
    }
}
