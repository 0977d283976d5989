package io.streamhouse.drills;

import io.streamhouse.replay.ReplayCli;
import picocli.CommandLine.Option;

import java.net.URI;
import java.nio.file.Path;

/** The options every fault drill shares, and their bounds. */
final class DrillOptions {
    @Option(names = "--ingest-url", description = "ingest (default: the stack's, from <data>/endpoints.properties, else http://127.0.0.1:8081)")
    URI ingest;
    @Option(names = "--api-url", description = "the api instance faulted and watched (default: instance 1, from "
            + "<data>/endpoints.properties, else http://127.0.0.1:8082)")
    URI api;
    @Option(names = "--rate", defaultValue = "25", description = "authorizes per second, 1-50 (default ${DEFAULT-VALUE})")
    int rate;
    @Option(names = "--async-rate", defaultValue = "1000",
            description = "telemetry readings and parcel scans per second, 0-" + Drill.MAX_ASYNC_RATE + " (default ${DEFAULT-VALUE})")
    int asyncRate;
    @Option(names = "--duration", defaultValue = "40", description = "seconds of load, 5-300 (default ${DEFAULT-VALUE})")
    int duration;
    @Option(names = {"--fault-after", "--kill-after"}, defaultValue = "10",
            description = "seconds into the load to inject the fault (default ${DEFAULT-VALUE})")
    int faultAfter;
    @Option(names = "--seed", description = "the generator seed (default: the time; transaction ids are drill-<seed>-<n>)")
    Long seed;
    @Option(names = "--lag-bound", defaultValue = "100", description = "lag (records, per watched group) that counts as normal (default ${DEFAULT-VALUE})")
    long lagBound;
    @Option(names = "--recovery-timeout", defaultValue = "120", description = "seconds to wait for recovery and lag (default ${DEFAULT-VALUE})")
    int recoveryTimeout;
    @Option(names = "--kafka-tools", defaultValue = "load-tests/target",
            description = "directory with kafka-tools.classpath, for wipe-api-state's ConsumerPerformance baseline (default ${DEFAULT-VALUE})")
    Path kafkaTools;
    @Option(names = "--json", description = "print the summary as JSON on stdout")
    boolean json;

    /** @throws ReplayCli.BadInput when an option is out of its bounds */
    void validate() {
        if (rate < 1 || rate > 50 || asyncRate < 0 || asyncRate > Drill.MAX_ASYNC_RATE || duration < 5 || duration > 300 || faultAfter < 1
                || faultAfter >= duration || lagBound < 0 || recoveryTimeout < 10) {
            throw new ReplayCli.BadInput("--rate 1-50, --async-rate 0-" + Drill.MAX_ASYNC_RATE + ", --duration 5-300 s, --fault-after between 1 and "
                    + "the duration, --lag-bound 0 or more, --recovery-timeout at least 10 s");
        }
    }
}
