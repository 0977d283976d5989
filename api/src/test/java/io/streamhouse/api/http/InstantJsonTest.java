package io.streamhouse.api.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The fast instant writer must write what Jackson's JavaTime serializer wrote before it, for every instant. */
class InstantJsonTest {
    private final ObjectMapper jackson = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    private final ObjectMapper ours = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    InstantJsonTest() {
        new InstantJson().customize(ours);
    }

    @Test
    void writesWhatJacksonsOwnSerializerWrote() throws Exception {
        List<Instant> edges = List.of(Instant.EPOCH, Instant.parse("2026-03-02T09:00:00Z"),
                Instant.parse("2026-11-30T21:03:51.553Z"), Instant.parse("2026-11-30T21:03:51.553100Z"),
                Instant.parse("2026-11-30T21:03:51.000000001Z"), Instant.parse("2024-02-29T23:59:59.999999999Z"),
                Instant.parse("0000-01-01T00:00:00Z"), Instant.parse("9999-12-31T23:59:59.100Z"),
                Instant.parse("1969-12-31T23:59:59.5Z"), Instant.MIN, Instant.MAX, Instant.parse("+10000-01-01T00:00:00Z"));
        for (Instant t : edges) {
            assertThat(ours.writeValueAsString(t)).as(t.toString()).isEqualTo(jackson.writeValueAsString(t));
        }
        SplittableRandom random = new SplittableRandom(7);
        for (int n = 0; n < 200_000; n++) {
            long seconds = random.nextLong(-62_167_219_200L, 253_402_300_800L); // years 0000-9999
            int nanos = switch (n % 4) {
                case 0 -> 0;
                case 1 -> random.nextInt(1000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1_000;
                default -> random.nextInt(1_000_000_000);
            };
            Instant t = Instant.ofEpochSecond(seconds, nanos);
            assertThat(ours.writeValueAsString(t)).as(t.toString()).isEqualTo(jackson.writeValueAsString(t));
        }
    }

    @Test
    void nestedInstantsInRecordsUseIt() throws Exception {
        record At(Instant at, List<Instant> more) {
        }
        At value = new At(Instant.parse("2026-11-30T21:03:51.553Z"), List.of(Instant.parse("2026-11-30T21:03:52Z")));
        assertThat(ours.writeValueAsString(value)).isEqualTo(jackson.writeValueAsString(value))
                .isEqualTo("{\"at\":\"2026-11-30T21:03:51.553Z\",\"more\":[\"2026-11-30T21:03:52Z\"]}");
    }
}
