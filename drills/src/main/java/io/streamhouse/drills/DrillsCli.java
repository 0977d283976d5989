package io.streamhouse.drills;

import io.streamhouse.replay.ReplayCli;

import java.io.PrintStream;

/**
 * {@code ./streamhouse drill …} and {@code ./streamhouse replay …}: the replay CLI with the {@code drill} subcommand
 * added, so both run from one classpath while replay itself knows nothing of the drills. Same options, output and
 * exit codes as {@link ReplayCli}.
 */
public final class DrillsCli {
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        return ReplayCli.run(args, out, err, new Drill());
    }

    private DrillsCli() {
    }
}
