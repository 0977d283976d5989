package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.Money;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderLine;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.TransactionAuthorizationRequested;
import io.streamhouse.domain.events.EventTypes;
import io.streamhouse.domain.events.Monies;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.AvroSerializer;
import io.streamhouse.domain.wire.InMemorySchemaRegistryClient;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Every generated event is valid for its schema on the wire, and every amount is valid money. */
class EventsOnTheWireTest {

    @Test
    void everyEventRoundTripsThroughTheWireFormatOfItsCatalogTopic() {
        Generation g = Generator.generate(GeneratorConfig.defaults(99, 20_000));
        var registry = new InMemorySchemaRegistryClient();
        var serializer = new AvroSerializer<>(registry, SpecificRecord.class, false);
        Map<EventKind, AvroDeserializer<? extends SpecificRecord>> readers = new EnumMap<>(EventKind.class);
        for (EventKind kind : EventKind.values()) {
            readers.put(kind, reader(registry, kind.topic().valueType()));
        }
        Set<EventKind> seen = EnumSet.noneOf(EventKind.class);
        for (GeneratedEvent e : g.events()) {
            String topic = e.kind().topic().name();
            assertThat(e.kind().topic().valueType()).isEqualTo(e.value().getClass());
            assertThat(e.value().getSchema()).isEqualTo(EventTypes.values()[indexOf(e.value())].schema());
            byte[] bytes = serializer.serialize(topic, e.value());
            assertThat(readers.get(e.kind()).deserialize(topic, bytes)).as(e.eventId()).isEqualTo(e.value());
            assertThat(((io.streamhouse.domain.event.Envelope) e.value().get(0)).getKey()).isEqualTo(e.key());
            seen.add(e.kind());
        }
        assertThat(seen).isEqualTo(EnumSet.allOf(EventKind.class));
    }

    @Test
    void everyAmountIsValidMoneyAndOrderTotalsAddUp() {
        Generation g = Generator.generate(GeneratorConfig.defaults(5, 20_000));
        int checked = 0;
        for (GeneratedEvent e : g.events()) {
            List<Money> amounts = new ArrayList<>();
            if (e.value() instanceof TransactionAuthorizationRequested tx) {
                amounts.add(tx.getAmount());
                assertThat(tx.getAmount().getAmount()).isPositive();
            } else if (e.value() instanceof OrderEvent o && o.getChange() instanceof OrderPlaced placed) {
                amounts.add(placed.getTotal());
                BigDecimal sum = BigDecimal.ZERO;
                for (OrderLine l : placed.getLines()) {
                    amounts.add(l.getUnitPrice());
                    sum = sum.add(l.getUnitPrice().getAmount().multiply(BigDecimal.valueOf(l.getQuantity())));
                }
                assertThat(placed.getTotal().getAmount()).isEqualByComparingTo(sum);
            }
            for (Money m : amounts) {
                assertThat(Monies.of(m.getAmount(), m.getCurrency())).isEqualTo(m);
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(5_000);
    }

    @Test
    void customerEventsKeepTheirCustomerAsKey() {
        Generation g = Generator.generate(GeneratorConfig.defaults(11, 20_000));
        long customers = g.events().stream().filter(e -> e.value() instanceof CustomerEvent c
                && c.getCustomerId().equals(e.key())).count();
        long all = g.events().stream().filter(e -> e.kind() == EventKind.CUSTOMER).count();
        assertThat(all).isPositive().isEqualTo(customers);
    }

    @SuppressWarnings("unchecked")
    private static AvroDeserializer<? extends SpecificRecord> reader(InMemorySchemaRegistryClient registry, Class<?> type) {
        return new AvroDeserializer<>(registry, (Class<SpecificRecord>) type, false);
    }

    private static int indexOf(SpecificRecord value) {
        for (EventTypes t : EventTypes.values()) {
            if (t.type().equals(value.getClass())) {
                return t.ordinal();
            }
        }
        throw new AssertionError("not an event type: " + value.getClass());
    }
}
