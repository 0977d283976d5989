package io.streamhouse.api.serving;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.domain.state.CustomerOrderEntry;
import io.streamhouse.domain.state.CustomerState;
import io.streamhouse.domain.events.Monies;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A forwarded answer decodes to exactly what the owner's store returned: timestamps, decimals, freshness. */
class StateCodecTest {

    @Test
    void foundNotFoundAndUnavailableRoundTrip() {
        CustomerState state = CustomerState.newBuilder().setCustomerId("c-1").setRegisteredAt(Times.T0)
                .setOrders(List.of(CustomerOrderEntry.newBuilder().setOrderId("o-1").setStatus("PLACED")
                        .setTotal(Monies.of("39.98", "EUR")).setChangedAt(Times.T0).build()))
                .setSpend(Map.of("EUR", "39.9800")).setLastEventId("e-1").setLastEventAt(Times.T0).build();
        Freshness freshness = new Freshness(Times.T0, 3L, 120L, true, "127.0.0.1:1");
        Lookup<CustomerState> found = StateCodec.decode(StateCodec.encode(
                new Lookup.Found<>(state, Times.T0, Times.T0.plus(Times.ONE_HOUR), freshness)), CustomerState.class);
        assertThat(found).isEqualTo(new Lookup.Found<>(state, Times.T0, Times.T0.plus(Times.ONE_HOUR), freshness));

        Freshness unknownLag = new Freshness(null, null, null, false, "h:2");
        assertThat(StateCodec.decode(StateCodec.encode(new Lookup.NotFound<CustomerState>(unknownLag)), CustomerState.class))
                .isEqualTo(new Lookup.NotFound<CustomerState>(unknownLag));
        assertThat(StateCodec.decode(StateCodec.encode(new Lookup.Unavailable<CustomerState>("gone")), CustomerState.class))
                .isEqualTo(new Lookup.Unavailable<CustomerState>("gone"));
    }

    @Test
    void feedPagesKeepKeysValuesAndMissingPartitions() {
        Alert alert = (Alert) SampleEvents.oneOfEach().stream().filter(e -> e instanceof Alert).findFirst().orElseThrow();
        var page = StateCodec.decodePage(StateCodec.encodePage(List.of(Map.entry("k1", alert)), List.of(2)), Alert.class);
        assertThat(page.entries()).containsExactly(Map.entry("k1", alert));
        assertThat(page.missingPartitions()).containsExactly(2);
    }
}
