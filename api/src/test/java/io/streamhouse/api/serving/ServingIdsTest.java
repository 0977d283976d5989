package io.streamhouse.api.serving;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The hand-written id check accepts exactly what the documented pattern accepts. */
class ServingIdsTest {
    private static final Pattern DOCUMENTED = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}");

    @Test
    void acceptsExactlyTheDocumentedPattern() {
        for (String id : new String[]{"P-1042", "a", "7521", "truck-7", "x".repeat(64), "x".repeat(65), "", "-a", ".a",
                "a b", "a/b", "é", "P-1042?", "a:b.c_d-e", "_a", "A_", "%20bad"}) {
            assertThat(ServingResource.isId(id)).as("'%s'", id).isEqualTo(DOCUMENTED.matcher(id).matches());
        }
        String alphabet = "aZ09._:- /%é?#\u0000";
        SplittableRandom random = new SplittableRandom(11);
        for (int n = 0; n < 100_000; n++) {
            StringBuilder id = new StringBuilder();
            int length = random.nextInt(0, 68);
            for (int i = 0; i < length; i++) {
                id.append(alphabet.charAt(random.nextInt(random.nextInt(10) == 0 ? alphabet.length() : 8)));
            }
            assertThat(ServingResource.isId(id.toString())).as("'%s'", id).isEqualTo(DOCUMENTED.matcher(id).matches());
        }
    }
}
