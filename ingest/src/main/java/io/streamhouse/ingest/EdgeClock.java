package io.streamhouse.ingest;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import java.time.Clock;

/** The only clock in ingest: it stamps recordedAt at the edge. Tests may replace it. */
@ApplicationScoped
public class EdgeClock {
    @Produces
    @ApplicationScoped
    Clock clock() {
        return Clock.systemUTC();
    }
}
