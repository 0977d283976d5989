package io.streamhouse.replay;

import io.streamhouse.domain.decision.CardFeatures;
import io.streamhouse.domain.decision.Decisions;
import io.streamhouse.domain.decision.DefaultRules;
import io.streamhouse.domain.decision.Features;
import io.streamhouse.domain.event.DecisionReason;
import io.streamhouse.domain.event.TransactionDecision;
import io.streamhouse.domain.state.ParcelTracking;
import io.streamhouse.domain.testdata.Cards;
import io.streamhouse.domain.testdata.Merchants;
import io.streamhouse.domain.testdata.SampleEvents;
import io.streamhouse.domain.testdata.Times;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CanonicalValuesTest {

    private static final Deserializer<TransactionDecision> DECODER = (topic, bytes) -> {
        try {
            return new SpecificDatumReader<>(TransactionDecision.class).read(null, DecoderFactory.get().binaryDecoder(bytes, null));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    };

    @Test
    void aDecisionWhoseFactsComeInAnotherOrderComparesEqualAndOneWithAnotherFactDoesNot() throws IOException {
        TransactionDecision decided = largeAmountDecision();
        Map<String, String> facts = decided.getReasons().get(0).getFacts();
        assertThat(facts).hasSizeGreaterThan(1);
        TransactionDecision reordered = withFacts(decided, reversed(facts));
        Map<String, String> changed = new LinkedHashMap<>(facts);
        changed.put(facts.keySet().iterator().next(), "something else");
        TransactionDecision otherFact = withFacts(decided, changed);

        var canonical = CanonicalValues.of(TransactionDecision.class, DECODER, "t").orElseThrow();
        assertThat(bytes(reordered)).as("the maps' order is in the stored bytes").isNotEqualTo(bytes(decided));
        assertThat(canonical.apply(bytes(reordered))).isEqualTo(canonical.apply(bytes(decided)));
        assertThat(canonical.apply(bytes(otherFact))).isNotEqualTo(canonical.apply(bytes(decided)));
        assertThat(canonical.apply(new byte[]{1, 2, 3})).as("unreadable bytes compared as they are").containsExactly(1, 2, 3);
    }

    @Test
    void aValueTypeWithoutAMapIsComparedByItsStoredBytes() {
        assertThat(CanonicalValues.of(ParcelTracking.class, (topic, bytes) -> null, "t")).isEmpty();
    }

    private static TransactionDecision largeAmountDecision() {
        var tx = SampleEvents.transaction("canonical-tx", Cards.ALICE, "1500.00", "EUR", Merchants.GROCER_ROTTERDAM, Times.T0);
        return Decisions.toEvent(tx, DefaultRules.ruleSet().decide(tx,
                Features.of(CardFeatures.firstPayment(tx.getTransactionId(), tx.getAmount().getAmount()))), Times.T0);
    }

    private static TransactionDecision withFacts(TransactionDecision decision, Map<String, String> facts) {
        List<DecisionReason> reasons = new ArrayList<>(decision.getReasons());
        reasons.set(0, DecisionReason.newBuilder(reasons.get(0)).setFacts(facts).build());
        return TransactionDecision.newBuilder(decision).setReasons(reasons).build();
    }

    private static Map<String, String> reversed(Map<String, String> facts) {
        List<Map.Entry<String, String>> entries = new ArrayList<>(facts.entrySet());
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = entries.size() - 1; i >= 0; i--) {
            out.put(entries.get(i).getKey(), entries.get(i).getValue());
        }
        return out;
    }

    private static byte[] bytes(TransactionDecision decision) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<>(TransactionDecision.class).write(decision, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
