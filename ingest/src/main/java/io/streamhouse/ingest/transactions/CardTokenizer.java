package io.streamhouse.ingest.transactions;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;

/**
 * Replaces a card number (PAN) by an irreversible token at the edge: HMAC-SHA256 under a secret key, so the same
 * card always gets the same token (rules can follow a card) but the token cannot be turned back into the number
 * without the key, and the number never reaches a topic or a log line. Production keeps the key in a secret store
 * and passes it in {@code STREAMHOUSE_TOKENIZATION_KEY}.
 */
public final class CardTokenizer {
    private final SecretKeySpec key;

    public CardTokenizer(String secret) {
        if (secret == null || secret.length() < 16) {
            throw new IllegalArgumentException("the tokenization key must be at least 16 characters");
        }
        this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    }

    /** @param pan digits only, already checked with {@link #isValidPan} */
    public String tokenize(String pan) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            byte[] digest = mac.doFinal(pan.getBytes(StandardCharsets.US_ASCII));
            return "tok_" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, 32);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    /** 12 to 19 digits passing the Luhn check. */
    public static boolean isValidPan(String pan) {
        if (pan == null || pan.length() < 12 || pan.length() > 19) {
            return false;
        }
        int sum = 0;
        boolean doubleIt = false;
        for (int i = pan.length() - 1; i >= 0; i--) {
            char c = pan.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
            int d = c - '0';
            if (doubleIt) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
            doubleIt = !doubleIt;
        }
        return sum % 10 == 0;
    }
}
