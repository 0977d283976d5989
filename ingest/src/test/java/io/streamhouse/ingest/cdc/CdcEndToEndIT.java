package io.streamhouse.ingest.cdc;

import io.streamhouse.connect.ConnectProcess;
import io.streamhouse.domain.event.CustomerAddressChanged;
import io.streamhouse.domain.event.CustomerDeleted;
import io.streamhouse.domain.event.CustomerEmailChanged;
import io.streamhouse.domain.event.CustomerEvent;
import io.streamhouse.domain.event.CustomerRegistered;
import io.streamhouse.domain.event.OrderCancelled;
import io.streamhouse.domain.event.OrderEvent;
import io.streamhouse.domain.event.OrderPlaced;
import io.streamhouse.domain.event.OrderStatusChanged;
import io.streamhouse.domain.topic.Topics;
import io.streamhouse.domain.wire.AvroDeserializer;
import io.streamhouse.domain.wire.CachingSchemaRegistryClient;
import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.SharedPlatform;
import io.streamhouse.platform.junit.WithStreamhousePlatform;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * PostgreSQL → Debezium (Connect worker, child JVM, exactly-once source) → {@code shop.cdc.changes} → the CDC
 * normaliser (as ingest runs it, here without Quarkus) → {@code shop.customers} / {@code shop.orders}, on the shared
 * platform. It runs beside ingest's Quarkus classes, its methods one at a time under
 * {@link WithStreamhousePlatform#CONNECT_LOCK}: one of them kills the worker.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(WithStreamhousePlatform.CONNECT_LOCK)
class CdcEndToEndIT {

    private static EmbeddedPlatform platform;
    private static CdcNormaliser normaliser;

    @BeforeAll
    static void start() {
        platform = SharedPlatform.get();
        platform.cdc();
        Path stateDir = platform.options().dataDir().resolve("ingest-cdc-state");
        normaliser = CdcNormaliser.start(new CdcNormaliser.Settings(platform.bootstrapServers(),
                platform.schemaRegistryUrl().toString(), stateDir, "cdc-it-" + UUID.randomUUID(), null));
        await().atMost(Duration.ofSeconds(60)).until(normaliser::isRunning);
    }

    @AfterAll
    static void stop() {
        if (normaliser != null) {
            normaliser.close();
        }
    }

    /**
     * Each change is committed and its domain event awaited before the next (one change in flight, so the latency is
     * the pipeline's, not a queue's). Prints median and p99 commit → domain event; asserts content, not time. Fifteen
     * rounds of seven changes give 105 samples: from 100 samples on, the p99 is an order statistic of its own (here the
     * second largest) rather than the maximum, so median, p99 and max are three figures.
     */
    @Test
    void insertsUpdatesAndDeletesBecomeDomainEventsAndTheLatencyIsReported() throws Exception {
        String run = "lat-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        int n = 15;
        List<Long> latenciesMs = new ArrayList<>();
        List<Long> captureMs = new ArrayList<>();
        List<Long> deliveryMs = new ArrayList<>();
        Map<String, Integer> kinds = new HashMap<>();
        try (Connection c = platform.postgres().connect();
             Domain<CustomerEvent> customers = new Domain<>(Topics.CUSTOMERS.name(), CustomerEvent.class);
             Domain<OrderEvent> orders = new Domain<>(Topics.ORDERS.name(), OrderEvent.class)) {
            ShopTestWriter shop = new ShopTestWriter(c);
            for (int i = 0; i < n; i++) {
                String customer = run + "c" + i;
                String order = run + "o" + i;
                long t0 = System.nanoTime();
                shop.register(customer, customer + "@example.com", Instant.now());
                CustomerEvent registered = customers.await(customer, e -> e.getChange() instanceof CustomerRegistered);
                latenciesMs.add(ms(t0));
                customers.breakdown(captureMs, deliveryMs);
                assertThat(((CustomerRegistered) registered.getChange()).getAddress().getCity()).isEqualTo("Rotterdam");

                t0 = System.nanoTime();
                shop.changeEmail(customer, "new-" + customer + "@example.com");
                CustomerEvent email = customers.await(customer, e -> e.getChange() instanceof CustomerEmailChanged);
                latenciesMs.add(ms(t0));
                customers.breakdown(captureMs, deliveryMs);
                assertThat(((CustomerEmailChanged) email.getChange()).getPrevious()).isEqualTo(customer + "@example.com");

                t0 = System.nanoTime();
                shop.moveTo(customer, "Blaak " + i);
                CustomerEvent moved = customers.await(customer, e -> e.getChange() instanceof CustomerAddressChanged);
                latenciesMs.add(ms(t0));
                customers.breakdown(captureMs, deliveryMs);
                assertThat(((CustomerAddressChanged) moved.getChange()).getPrevious().getLine1()).isEqualTo("Coolsingel 1");

                t0 = System.nanoTime();
                shop.placeOrder(order, customer, new BigDecimal("19.9900"), new BigDecimal("0.0001"));
                OrderEvent placed = orders.await(order, e -> e.getChange() instanceof OrderPlaced);
                latenciesMs.add(ms(t0));
                orders.breakdown(captureMs, deliveryMs);
                assertThat(((OrderPlaced) placed.getChange()).getTotal().getAmount()).isEqualTo(new BigDecimal("19.9901"));
                assertThat(((OrderPlaced) placed.getChange()).getLines()).hasSize(2);

                t0 = System.nanoTime();
                shop.setStatus(order, "PAID");
                orders.await(order, e -> e.getChange() instanceof OrderStatusChanged);
                latenciesMs.add(ms(t0));
                orders.breakdown(captureMs, deliveryMs);

                t0 = System.nanoTime();
                shop.deleteOrder(order);
                orders.await(order, e -> e.getChange() instanceof OrderCancelled);
                latenciesMs.add(ms(t0));
                orders.breakdown(captureMs, deliveryMs);

                t0 = System.nanoTime();
                shop.deleteCustomer(customer);
                customers.await(customer, e -> e.getChange() instanceof CustomerDeleted);
                latenciesMs.add(ms(t0));
                customers.breakdown(captureMs, deliveryMs);
            }
            // every change exactly once: 4 customer events and 3 order events per iteration, no more
            assertThat(customers.countWithPrefix(run)).isEqualTo(4 * n);
            assertThat(orders.countWithPrefix(run)).isEqualTo(3 * n);
            kinds.put("customer", customers.countWithPrefix(run));
            kinds.put("order", orders.countWithPrefix(run));
        }
        System.out.printf("CDC commit -> domain event latency over %d changes (%s): %s; of which PostgreSQL commit ->"
                        + " Debezium read (source.ts_ms -> envelope ts_ms) %s, Debezium read -> domain event consumed %s%n",
                latenciesMs.size(), kinds, percentiles(latenciesMs), percentiles(captureMs), percentiles(deliveryMs));
        assertThat(latenciesMs).hasSize(7 * n);
    }

    /**
     * A card number typed into the shop database (an e-mail, an address line) is masked by the Connect converter
     * before it reaches {@code shop.cdc.changes}, so neither the raw capture topic nor the domain topics nor their
     * dead-letter topics hold it in clear (docs/pii.md).
     */
    @Test
    void aCardNumberTypedIntoTheShopDatabaseIsOnNoTopicInClear() throws Exception {
        String customer = "pan-" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c = platform.postgres().connect();
             Domain<CustomerEvent> customers = new Domain<>(Topics.CUSTOMERS.name(), CustomerEvent.class)) {
            ShopTestWriter shop = new ShopTestWriter(c);
            shop.register(customer, "5555555555554444@example.com", Instant.now());
            CustomerEvent registered = customers.await(customer, e -> e.getChange() instanceof CustomerRegistered);
            assertThat(((CustomerRegistered) registered.getChange()).getEmail()).isEqualTo("****************@example.com");
            shop.moveTo(customer, "Card 4111 1111 1111 1111");
            CustomerEvent moved = customers.await(customer, e -> e.getChange() instanceof CustomerAddressChanged);
            assertThat(((CustomerAddressChanged) moved.getChange()).getCurrent().getLine1()).isEqualTo("Card **** **** **** ****");
        }
        var scanner = new io.streamhouse.domain.pii.PanScanner();
        long records = 0;
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                platform.bootstrapServers(), ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            List<org.apache.kafka.common.TopicPartition> partitions = new ArrayList<>();
            for (String topic : List.of(Topics.CDC_SHOP_CHANGES.name(), Topics.CUSTOMERS.name(), Topics.ORDERS.name(),
                    Topics.deadLetterOf(Topics.CDC_SHOP_CHANGES).name())) {
                var infos = consumer.partitionsFor(topic);
                if (infos != null) {
                    infos.forEach(p -> partitions.add(new org.apache.kafka.common.TopicPartition(topic, p.partition())));
                }
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            var end = consumer.endOffsets(partitions);
            long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                assertThat(System.nanoTime()).as("read the CDC topics to their end within 60 s").isLessThan(until);
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    String where = r.topic() + "/" + r.partition() + "@" + r.offset();
                    scanner.scan(where + " key", r.key());
                    scanner.scan(where + " value", r.value());
                    r.headers().forEach(h -> scanner.scan(where + " header " + h.key(), h.value()));
                    records++;
                }
            }
        }
        assertThat(records).isPositive();
        assertThat(scanner.hits()).as("Luhn-valid digit runs in %d CDC records", records).isEmpty();
    }

    /**
     * The Connect worker is killed with {@code kill -9} while a writer commits orders, then started again: every order
     * is placed exactly once on {@code shop.orders} (read_committed) — count, ids and event ids checked — and the raw
     * capture topic itself holds each order's insert exactly once (exactly-once source, not only the topology's
     * de-duplication). The writer commits far faster than the pipeline reads, so the kill lands with changes in flight
     * and the orders committed while no worker runs are a backlog the restarted worker reads from its last committed
     * position. The claim depends on that, not on the count: 1,500 orders leave a backlog of over a thousand, while the
     * time to catch up grows with every order (the pipeline reads a backlog at a few hundred orders a second here).
     */
    @Test
    void killingTheConnectWorkerMidStreamLosesAndDoublesNothing() throws Exception {
        String run = "kill-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        int firstHalf = 300;
        int total = 1500;
        AtomicInteger written = new AtomicInteger();
        try (Connection c = platform.postgres().connect();
             Domain<OrderEvent> orders = new Domain<>(Topics.ORDERS.name(), OrderEvent.class)) {
            ShopTestWriter shop = new ShopTestWriter(c);
            shop.register(run + "c", run + "c@example.com", Instant.now());
            for (int i = 0; i < firstHalf; i++) {
                shop.placeOrder(run + "o" + i, run + "c", new BigDecimal(i + ".0100"));
                written.incrementAndGet();
            }
            orders.awaitCount(run, 50);

            long writerStarted = System.nanoTime();
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try (Connection c2 = platform.postgres().connect()) {
                    ShopTestWriter w = new ShopTestWriter(c2);
                    for (int i = firstHalf; i < total; i++) {
                        w.placeOrder(run + "o" + i, run + "c", new BigDecimal(i + ".0100"));
                        written.incrementAndGet();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            ConnectProcess worker = platform.cdc();
            long killedPid = worker.pid();
            await().atMost(Duration.ofSeconds(30)).until(() -> written.get() > firstHalf + 20);
            int writtenAtKill = written.get();
            worker.kill();
            long killedAt = System.nanoTime();
            ConnectProcess restarted = platform.cdc();
            int writtenAtRestart = written.get();
            long restartedAt = System.nanoTime();
            assertThat(writtenAtKill).as("killed while the writer was still writing").isLessThan(total);
            assertThat(writtenAtRestart).as("orders committed while no worker ran (the backlog)").isGreaterThan(writtenAtKill);
            assertThat(restarted.pid()).isNotEqualTo(killedPid);
            writer.get();

            orders.awaitCount(run, total);
            long caughtUp = System.nanoTime();
            Map<String, List<String>> eventIdsByOrder = orders.eventIdsByKey(run);
            assertThat(eventIdsByOrder).hasSize(total);
            assertThat(eventIdsByOrder.values()).allSatisfy(ids -> assertThat(ids).hasSize(1));
            Set<String> eventIds = new HashSet<>();
            eventIdsByOrder.values().forEach(eventIds::addAll);
            assertThat(eventIds).hasSize(total);
            System.out.printf("kill -9 of Connect pid %d after %d of %d orders committed (%d ms into the writer); restarted"
                            + " as pid %d in %d ms, %d orders committed meanwhile (the backlog); %d orders placed exactly"
                            + " once on shop.orders %d ms after the restart%n", killedPid, writtenAtKill, total,
                    ms(writerStarted, killedAt), restarted.pid(), ms(killedAt, restartedAt), writtenAtRestart - writtenAtKill,
                    total, ms(restartedAt, caughtUp));
        }
        assertThat(RawChanges.orderInsertsPerOrder(platform, run)).hasSize(total)
                .allSatisfy((order, count) -> assertThat(count).as("raw inserts of %s", order).isEqualTo(1));
    }

    private static String percentiles(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return String.format("median %d ms, p99 %d ms, max %d ms", sorted.get(sorted.size() / 2),
                sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1), sorted.get(sorted.size() - 1));
    }

    private static long ms(long t0) {
        return ms(t0, System.nanoTime());
    }

    private static long ms(long from, long to) {
        return Duration.ofNanos(to - from).toMillis();
    }

    /** A read_committed consumer of a domain topic from the beginning, remembering everything it read. */
    private static final class Domain<T extends org.apache.avro.specific.SpecificRecord> implements AutoCloseable {
        private final KafkaConsumer<String, T> consumer;
        private final List<ConsumerRecord<String, T>> seen = new ArrayList<>();
        private final List<Long> receivedAtMs = new ArrayList<>();
        private ConsumerRecord<String, T> lastMatch;
        private long lastMatchReceivedAtMs;

        Domain(String topic, Class<T> type) {
            var registry = new CachingSchemaRegistryClient(platform.schemaRegistryUrl().toString());
            consumer = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, platform.bootstrapServers(),
                    ConsumerConfig.GROUP_ID_CONFIG, "cdc-it-" + UUID.randomUUID(),
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                    ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000),
                    new StringDeserializer(), new AvroDeserializer<>(registry, type, false));
            consumer.subscribe(List.of(topic));
        }

        T await(String key, Predicate<T> matches) {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            int from = 0;
            while (System.nanoTime() < deadline) {
                for (int i = from; i < seen.size(); i++) {
                    ConsumerRecord<String, T> r = seen.get(i);
                    if (key.equals(r.key()) && matches.test(r.value())) {
                        lastMatch = r;
                        lastMatchReceivedAtMs = receivedAtMs.get(i);
                        return r.value();
                    }
                }
                from = seen.size();
                poll(Duration.ofMillis(5));
            }
            throw new AssertionError("no matching event for " + key + " within 30 s");
        }

        void awaitCount(String prefix, int count) {
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (countWithPrefix(prefix) < count && System.nanoTime() < deadline) {
                poll(Duration.ofMillis(200));
            }
            // one more poll: anything beyond the expected count would be a duplicate and must be seen
            poll(Duration.ofSeconds(2));
            assertThat(countWithPrefix(prefix)).as("events with keys %s*", prefix).isGreaterThanOrEqualTo(count);
        }

        private void poll(Duration timeout) {
            var records = consumer.poll(timeout);
            long now = System.currentTimeMillis();
            for (ConsumerRecord<String, T> r : records) {
                seen.add(r);
                receivedAtMs.add(now);
            }
        }

        /** Of the last awaited event: commit -> Debezium read, and Debezium read -> consumed here (wall clock). */
        void breakdown(List<Long> capture, List<Long> delivery) {
            var envelope = (org.apache.avro.generic.GenericRecord) ((org.apache.avro.generic.GenericRecord) lastMatch.value()).get("envelope");
            long occurred = ((java.time.Instant) envelope.get("occurredAt")).toEpochMilli();
            long recorded = ((java.time.Instant) envelope.get("recordedAt")).toEpochMilli();
            capture.add(recorded - occurred);
            delivery.add(lastMatchReceivedAtMs - recorded);
        }

        int countWithPrefix(String prefix) {
            poll(Duration.ofMillis(500));
            return (int) seen.stream().filter(r -> r.key().startsWith(prefix)).count();
        }

        Map<String, List<String>> eventIdsByKey(String prefix) {
            Map<String, List<String>> out = new HashMap<>();
            for (ConsumerRecord<String, T> r : seen) {
                if (r.key().startsWith(prefix)) {
                    String id = ((org.apache.avro.generic.GenericRecord) ((org.apache.avro.generic.GenericRecord) r.value())
                            .get("envelope")).get("eventId").toString();
                    out.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(id);
                }
            }
            return out;
        }

        @Override
        public void close() {
            consumer.close();
        }
    }
}
