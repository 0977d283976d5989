package io.streamhouse.loadtests.generator;

import io.streamhouse.domain.event.AlertType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The generator's guarantees on a 100,000-event run: exact count, planted rates, found == planted, lateness. */
class GeneratorTest {
    static final int EVENTS = 100_000;
    static Generation run;
    static long millis;

    @BeforeAll
    static void generate() {
        long began = System.nanoTime();
        run = Generator.generate(GeneratorConfig.defaults(42, EVENTS));
        millis = (System.nanoTime() - began) / 1_000_000;
        System.out.printf("100k events generated in %d ms; anomalies %s; late %d%n", millis,
                Generator.countByType(run.anomalies()), run.lateEvents().size());
    }

    @Test
    void producesExactlyTheRequestedNumberOfEventsWithUniqueIds() {
        assertThat(run.events()).hasSize(EVENTS);
        assertThat(run.events().stream().map(GeneratedEvent::eventId).collect(Collectors.toSet())).hasSize(EVENTS);
        for (int i = 0; i < EVENTS; i++) {
            assertThat(run.events().get(i).deliveryIndex()).isEqualTo(i);
        }
    }

    @Test
    void plantsEachPatternAtItsRate() {
        Map<AlertType, Long> counts = Generator.countByType(run.anomalies());
        AnomalyRates rates = run.config().rates();
        for (AlertType type : List.of(AlertType.CARD_TESTING, AlertType.IMPOSSIBLE_TRAVEL, AlertType.ACCOUNT_TAKEOVER,
                AlertType.PARCEL_SLA_BREACH, AlertType.ENGINE_OVERHEATING)) {
            double expected = rates.of(type) * EVENTS / 1000.0;
            assertThat(counts.getOrDefault(type, 0L)).as(type.toString())
                    .isBetween(Math.round(expected * 0.95) - 1, Math.round(expected * 1.05) + 1);
        }
    }

    @Test
    void checkerFindsExactlyWhatWasPlanted() {
        var found = AnomalyChecker.scan(run.events(), run.config().rules());
        var score = AnomalyChecker.score(run.anomalies(), found);
        assertThat(score.missed()).as("planted but not found").isEmpty();
        assertThat(score.spurious()).as("found in normal traffic").isEmpty();
        assertThat(score.recall()).isEqualTo(1.0);
        assertThat(score.precision()).isEqualTo(1.0);
        assertThat(found).hasSize(run.anomalies().size());
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, -2026})
    void checkerFindsExactlyWhatWasPlantedForOtherSeedsAndHigherRates(long seed) {
        var config = GeneratorConfig.defaults(seed, 30_000).withRates(new AnomalyRates(3, 3, 2, 3, 3));
        var g = Generator.generate(config);
        var score = AnomalyChecker.score(g.anomalies(), AnomalyChecker.scan(g.events(), config.rules()));
        assertThat(score.missed()).isEmpty();
        assertThat(score.spurious()).isEmpty();
        assertThat(score.expected()).isGreaterThan(300);
    }

    @Test
    void checkerFindsNothingWhenNothingIsPlanted() {
        var clean = Generator.generate(GeneratorConfig.defaults(7, 30_000).withRates(AnomalyRates.NONE));
        assertThat(clean.anomalies()).isEmpty();
        assertThat(AnomalyChecker.scan(clean.events(), clean.config().rules())).isEmpty();
    }

    @Test
    void aboutTheLateRatioArrivesOutOfOrderAndEveryLateEventIsMarked() {
        double ratio = (double) run.lateEvents().size() / EVENTS;
        assertThat(ratio).isBetween(0.085, 0.115);
        // Recompute from the delivered stream alone.
        long newest = Long.MIN_VALUE;
        Set<String> outOfOrder = new HashSet<>();
        for (GeneratedEvent e : run.events()) {
            long t = e.occurredAt().toEpochMilli();
            if (t < newest) {
                outOfOrder.add(e.eventId());
                assertThat(e.latenessMillis()).isEqualTo(newest - t);
            } else {
                assertThat(e.latenessMillis()).isZero();
            }
            newest = Math.max(newest, t);
        }
        assertThat(run.lateEvents().stream().map(LateEvent::eventId).collect(Collectors.toSet())).isEqualTo(outOfOrder);
        long bound = run.config().latenessBound().toMillis();
        long beyond = run.lateEvents().stream().filter(LateEvent::beyondBound).count();
        assertThat(beyond).isPositive().isLessThan(run.lateEvents().size() / 2);
        assertThat(run.lateEvents()).allSatisfy(l -> assertThat(l.beyondBound()).isEqualTo(l.latenessMillis() > bound));
    }

    @Test
    void customersHaveAccountsFromBeforeTheRunAndSomeSignUpDuringIt() {
        var start = run.config().start();
        assertThat(run.customers()).hasSizeGreaterThan(run.config().customers());
        assertThat(run.customers()).filteredOn(c -> !c.signedUpDuringRun())
                .hasSize(run.config().customers())
                .allSatisfy(c -> assertThat(c.registeredAt()).isBefore(start.minus(java.time.Duration.ofDays(30))));
        long registrations = run.events().stream().filter(e -> e.value() instanceof io.streamhouse.domain.event.CustomerEvent c
                && c.getChange() instanceof io.streamhouse.domain.event.CustomerRegistered).count();
        assertThat(registrations).isPositive()
                .isEqualTo(run.customers().stream().filter(CustomerInfo::signedUpDuringRun).count());
    }

    @Test
    void theRunIsHundredThousandEventsInAFewSeconds() {
        assertThat(millis).isLessThan(15_000);
    }

    @Test
    void sameSeedGivesByteIdenticalEventsAndGroundTruth() throws Exception {
        var config = GeneratorConfig.defaults(1234, 20_000);
        assertThat(bytesOf(Generator.generate(config))).isEqualTo(bytesOf(Generator.generate(config)));
        assertThat(bytesOf(Generator.generate(GeneratorConfig.defaults(1235, 20_000))))
                .isNotEqualTo(bytesOf(Generator.generate(config)));
    }

    static String bytesOf(Generation g) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (var sink = new FileSink(out)) {
            for (GeneratedEvent e : g.events()) {
                sink.send(e);
            }
        }
        GroundTruthFiles.writeAnomalies(g, out);
        GroundTruthFiles.writeLateEvents(g, out);
        GroundTruthFiles.writeCards(g, out);
        GroundTruthFiles.writeCustomers(g, out);
        GroundTruthFiles.writeSummary(g, out);
        return out.toString(StandardCharsets.UTF_8);
    }
}
