package io.streamhouse.replay;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** How a changelog becomes a store's contents, and the digest that compares them. */
class StoreStateTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aVersionedStoreAnswersTheNewestTimestampAPlainStoreTheLastWrite() {
        StoreState versioned = new StoreState(true, 1);
        StoreState plain = new StoreState(false, 1);
        for (StoreState s : new StoreState[]{versioned, plain}) {
            s.apply(0, b("k"), b("new"), 20);
            s.apply(0, b("k"), b("old"), 10); // an older version written later
            s.apply(0, b("gone"), b("x"), 5);
            s.apply(0, b("gone"), null, 6);
        }
        assertThat(new String(versioned.contents().get(0).get("k"), StandardCharsets.UTF_8)).isEqualTo("new");
        assertThat(new String(plain.contents().get(0).get("k"), StandardCharsets.UTF_8)).isEqualTo("old");
        assertThat(versioned.contents().get(0)).doesNotContainKey("gone");
        assertThat(plain.contents().get(0)).doesNotContainKey("gone");
    }

    @Test
    void theDigestIgnoresOrderButNotAByte() {
        Map<String, byte[]> a = new LinkedHashMap<>();
        a.put("k1", b("v1"));
        a.put("k2", b("v2"));
        Map<String, byte[]> reversed = new LinkedHashMap<>();
        reversed.put("k2", b("v2"));
        reversed.put("k1", b("v1"));
        Map<String, byte[]> changed = new LinkedHashMap<>(a);
        changed.put("k2", b("v3"));
        Map<String, byte[]> swapped = Map.of("k1", b("v2"), "k2", b("v1"));

        assertThat(StoreState.digest(reversed)).isEqualTo(StoreState.digest(a));
        assertThat(StoreState.digest(changed)).isNotEqualTo(StoreState.digest(a));
        assertThat(StoreState.digest(swapped)).as("values moved between keys").isNotEqualTo(StoreState.digest(a));
    }

    @Test
    void aCutTravelsToTheProcessorWrapperIntact() {
        Cut cut = new Cut(Map.of(new TopicPartition("shop.orders", 5), 42L, new TopicPartition("alerts.fraud", 0), 0L), Map.of());
        assertThat(Cut.decode(cut.encode())).isEqualTo(cut.offsets());
        assertThat(Cut.decode("")).isEmpty();
    }
}
