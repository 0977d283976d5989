package io.streamhouse.drills;

import io.streamhouse.replay.ReplayCli;

import io.streamhouse.control.CliLog;

import java.io.PrintStream;

/**
 * {@code ./streamhouse drill …} and {@code ./streamhouse replay …}: the replay CLI with the {@code drill} subcommand
 * added, so both run from one classpath while replay itself knows nothing of the drills. Same options, output and
 * exit codes as {@link ReplayCli}.
 */
public final class DrillsCli {
    public static void main(String[] args) {
        String cli = args.length > 0 && args[0].equals("drill") ? "drill" : "replay";
        System.exit(CliLog.run(cli, args, (a, terminal) -> run(a, System.out, terminal)));
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        return ReplayCli.run(args, out, err, new Drill());
    }

    private DrillsCli() {
    }
}
