package io.streamhouse.api.serving;

import io.streamhouse.domain.event.Money;
import io.streamhouse.domain.state.CardActivity;
import io.streamhouse.domain.state.CardActivityEntry;
import jakarta.ws.rs.WebApplicationException;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A card's activity: newest first with outcomes, found on whichever instance holds the card, never by its number. */
class CardActivityRoutingTest {
    private static final Instant T0 = Instant.parse("2026-03-02T09:00:00Z");
    private static final HostInfo B = new HostInfo("10.0.0.2", 8082);
    private static final HostInfo C = new HostInfo("10.0.0.3", 8082);

    private static CardActivityEntry entry(String id, Instant at, String amount) {
        return CardActivityEntry.newBuilder().setTransactionId(id).setOccurredAt(at)
                .setAmount(Money.newBuilder().setAmount(new BigDecimal(amount).setScale(4)).setCurrency("EUR").build())
                .setMerchantId("m-grocer").setMerchantCountry("NL").setChannel("ECOMMERCE").build();
    }

    private static CardActivityView view(String servedBy, boolean stale) {
        return new CardActivityView("tok-1", List.of(new CardActivityView.Entry("tx-2", T0, "5.0000", "EUR", "m", "NL",
                "POS", "ALLOW", false, false)), stale, servedBy);
    }

    @Test
    void entriesAreListedNewestFirstWithAmountCurrencyAndOutcome() {
        CardActivity activity = CardActivity.newBuilder().setCardToken("tok-1").setEntries(List.of(
                entry("tx-1", T0, "12.5"), entry("tx-2", T0.plusSeconds(60), "1500"))).build();

        CardActivityView v = CardActivityView.of(activity, false, "here:1").withOutcomes(Map.of(
                "tx-2", new DecisionOutcomes.Outcome("REVIEW", true, false), "tx-1", new DecisionOutcomes.Outcome(null, false, false)));

        assertThat(v.activity()).containsExactly(
                new CardActivityView.Entry("tx-2", T0.plusSeconds(60), "1500.0000", "EUR", "m-grocer", "NL", "ECOMMERCE", "REVIEW", true, false),
                new CardActivityView.Entry("tx-1", T0, "12.5000", "EUR", "m-grocer", "NL", "ECOMMERCE", null, false, false));
        assertThat(CardActivityView.of(activity, false, "here:1").withOutcomes(Map.of()).activity())
                .as("an outcome nobody answered for").allSatisfy(e -> {
                    assertThat(e.outcome()).isNull();
                    assertThat(e.outcomeUnavailable()).isTrue();
                });
        assertThat(v.servedBy()).isEqualTo("here:1");
    }

    @Test
    void theActiveReplicaOfAnotherInstanceAnswersBeforeAnyStandby() {
        List<String> asked = new ArrayList<>();
        CardActivityRouting routing = new CardActivityRouting((card, standbyToo) -> {
            asked.add("local " + standbyToo);
            return standbyToo ? Optional.of(view("here", true)) : Optional.empty();
        }, () -> List.of(B, C), (host, path) -> {
            asked.add(host.host() + path);
            return host.equals(C) && !path.contains("standby") ? Optional.of(CardActivityRouting.encode(view("10.0.0.3:8082", false)))
                    : Optional.empty();
        });

        CardActivityRouting.Found found = routing.find("tok-1");

        assertThat(found).isEqualTo(new CardActivityRouting.Held(view("10.0.0.3:8082", false)));
        assertThat(asked).containsExactly("local false", "10.0.0.2/internal/v1/cards/tok-1/activity",
                "10.0.0.3/internal/v1/cards/tok-1/activity");
    }

    @Test
    void withNoActiveReplicaAnywhereAStandbyAnswersMarkedStaleAndWithNoneTheAnswerSaysWhoWasAsked() {
        CardActivityRouting standby = new CardActivityRouting((card, standbyToo) -> Optional.empty(), () -> List.of(B),
                (host, path) -> path.endsWith("?standby=true") ? Optional.of(CardActivityRouting.encode(view("10.0.0.2:8082", true)))
                        : Optional.empty());
        assertThat(standby.find("tok-1")).isEqualTo(new CardActivityRouting.Held(view("10.0.0.2:8082", true)));

        CardActivityRouting none = new CardActivityRouting((card, standbyToo) -> Optional.empty(), () -> List.of(B),
                (host, path) -> Optional.empty());
        assertThat(none.find("tok-1")).isInstanceOfSatisfying(CardActivityRouting.NotHeld.class, n -> assertThat(n.reason())
                .contains("partition " + CardActivityRouting.partitionOf("tok-1"))
                .contains("active here, active on 10.0.0.2:8082, any replica here, any replica on 10.0.0.2:8082"));
    }

    @Test
    void aCardNumberIsRefusedAsACardTokenWithoutRepeatingIt() {
        assertThatThrownBy(() -> CardActivityResource.validate("4111111111111111"))
                .isInstanceOfSatisfying(WebApplicationException.class, e -> {
                    assertThat(e.getResponse().getStatus()).isEqualTo(400);
                    assertThat(e.getResponse().getEntity().toString()).contains("cardToken").doesNotContain("4111111111111111");
                });
        assertThatThrownBy(() -> CardActivityResource.validate("tok 1"))
                .isInstanceOfSatisfying(WebApplicationException.class, e -> assertThat(e.getResponse().getStatus()).isEqualTo(400));
        CardActivityResource.validate("tok_card-1");
    }
}
