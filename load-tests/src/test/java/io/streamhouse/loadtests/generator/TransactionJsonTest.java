package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.domain.event.Channel;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP target's JSON has the shape ingest's TransactionRequestParser accepts. load-tests must not depend on
 * ingest (it would drag Quarkus in), so the field lists are read from the parser's source in this repository: when
 * the parser gains or renames a field, this test notices.
 */
class TransactionJsonTest {
    static final Path PARSER = Path.of("..", "ingest", "src", "main", "java", "io", "streamhouse", "ingest",
            "transactions", "TransactionRequestParser.java");
    /** Where ingest keeps the field list of a position, shared by all its parsers. */
    static final Path JSON_FIELDS = Path.of("..", "ingest", "src", "main", "java", "io", "streamhouse", "ingest",
            "http", "JsonFields.java");
    static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}");
    static Map<String, Set<String>> fields;

    @BeforeAll
    static void readParserFieldLists() throws IOException {
        String source = Files.readString(PARSER) + Files.readString(JSON_FIELDS);
        fields = new HashMap<>();
        Matcher m = Pattern.compile("Set<String> (TOP|CARD|MERCHANT|GEO_POINT|DEVICE) = Set\\.of\\(([^)]*)\\)",
                Pattern.DOTALL).matcher(source);
        while (m.find()) {
            Set<String> names = new LinkedHashSet<>();
            Matcher q = Pattern.compile("\"([^\"]+)\"").matcher(m.group(2));
            while (q.find()) {
                names.add(q.group(1));
            }
            fields.put(m.group(1).equals("GEO_POINT") ? "LOCATION" : m.group(1), names);
        }
        assertThat(fields).containsOnlyKeys("TOP", "CARD", "MERCHANT", "LOCATION", "DEVICE");
    }

    @Test
    void everyBodyUsesOnlyTheParsersFieldsAndFillsTheRequiredOnes() {
        List<JsonNode> bodies = bodies();
        assertThat(bodies).hasSizeGreaterThan(1_000);
        boolean sawLocation = false;
        boolean sawDevice = false;
        for (JsonNode b : bodies) {
            assertThat(names(b)).isSubsetOf(fields.get("TOP"))
                    .contains("transactionId", "occurredAt", "card", "merchant", "amount", "currency", "channel");
            assertThat(names(b.get("card"))).isSubsetOf(fields.get("CARD")).containsExactly("number");
            assertThat(names(b.get("merchant"))).isSubsetOf(fields.get("MERCHANT")).containsExactlyInAnyOrder("id", "name", "mcc", "country");
            if (b.has("location")) {
                sawLocation = true;
                assertThat(names(b.get("location"))).isSubsetOf(fields.get("LOCATION")).contains("lat", "lon");
                assertThat(b.get("location").get("lat").asDouble()).isBetween(-90.0, 90.0);
            }
            if (b.has("device")) {
                sawDevice = true;
                assertThat(names(b.get("device"))).isSubsetOf(fields.get("DEVICE")).contains("id");
                assertThat(b.get("device").get("ip").asText()).matches("[0-9a-fA-F:.]+");
            }
            // The parser's value rules, as it states them.
            assertThat(b.get("transactionId").asText()).matches(ID);
            assertThat(b.get("customerId").asText()).matches(ID);
            assertThat(b.get("merchant").get("id").asText()).matches(ID);
            assertThat(b.get("merchant").get("mcc").asText()).matches("\\d{4}");
            assertThat(b.get("merchant").get("country").asText()).matches("[A-Z]{2}");
            assertThat(b.get("merchant").get("name").asText()).hasSizeLessThanOrEqualTo(128);
            assertThat(Instant.parse(b.get("occurredAt").asText())).isNotNull();
            assertThat(TestPans.luhnValid(b.get("card").get("number").asText())).isTrue();
            assertThat(b.get("amount").isTextual()).isTrue();
            BigDecimal amount = new BigDecimal(b.get("amount").asText());
            assertThat(amount).isPositive();
            assertThat(amount.scale()).isLessThanOrEqualTo(4);
            assertThat(b.get("currency").asText()).isEqualTo("EUR");
            assertThat(Channel.valueOf(b.get("channel").asText())).isNotEqualTo(Channel.UNKNOWN);
        }
        assertThat(sawLocation).isTrue();
        assertThat(sawDevice).isTrue();
    }

    @Test
    void theBodyCarriesTheEventsValuesAndTheCardsTestPan() {
        Generation g = Generator.generate(GeneratorConfig.defaults(3, 2_000));
        GeneratedEvent e = g.events().stream().filter(x -> x.kind() == EventKind.TRANSACTION).findFirst().orElseThrow();
        var tx = (TransactionAuthorizationRequested) e.value();
        CardInfo card = g.cards().stream().filter(c -> c.token().equals(tx.getCardToken())).findFirst().orElseThrow();
        JsonNode body = TransactionJson.body(tx, card.pan());
        assertThat(body.get("transactionId").asText()).isEqualTo(tx.getTransactionId());
        assertThat(body.get("card").get("number").asText()).isEqualTo(card.pan()).isEqualTo(TestPans.pan(3, card.index()));
        assertThat(new BigDecimal(body.get("amount").asText())).isEqualByComparingTo(tx.getAmount().getAmount());
        assertThat(Instant.parse(body.get("occurredAt").asText())).isEqualTo(tx.getEnvelope().getOccurredAt());
    }

    static List<JsonNode> bodies() {
        Generation g = Generator.generate(GeneratorConfig.defaults(21, 10_000));
        Map<String, String> pans = new HashMap<>();
        g.cards().forEach(c -> pans.put(c.token(), c.pan()));
        List<JsonNode> out = new ArrayList<>();
        for (GeneratedEvent e : g.events()) {
            if (e.value() instanceof TransactionAuthorizationRequested tx) {
                out.add(TransactionJson.body(tx, pans.get(tx.getCardToken())));
            }
        }
        return out;
    }

    static Set<String> names(JsonNode node) {
        Set<String> names = new LinkedHashSet<>();
        Iterator<String> it = node.fieldNames();
        it.forEachRemaining(names::add);
        return names;
    }
}
