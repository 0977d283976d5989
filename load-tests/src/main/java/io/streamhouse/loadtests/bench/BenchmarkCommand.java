package io.streamhouse.loadtests.bench;

import io.streamhouse.control.CliLog;
import picocli.CommandLine;

import java.io.PrintWriter;

/** How every benchmark's {@code main} runs its picocli command: library logging to its log, usage errors to the terminal. */
final class BenchmarkCommand {

    /** The exit code of {@code command} on {@code args}, run under {@link CliLog#run} as {@code cli}. */
    static int execute(String cli, Object command, String[] args) {
        return CliLog.run(cli, args, (a, terminal) -> {
            CommandLine line = new CommandLine(command);
            line.setErr(new PrintWriter(terminal, true));
            return line.execute(a);
        });
    }

    private BenchmarkCommand() {
    }
}
