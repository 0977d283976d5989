package io.streamhouse.control;

import java.time.Instant;

/**
 * How a child ended. The JDK reports a death by signal N as exit value 128 + N (as a shell does), so 137 reads as
 * SIGKILL; a child that calls {@code exit(137)} itself looks the same.
 */
public record ExitInfo(int code, Instant at) {

    public String describe() {
        if (code > 128 && code < 128 + 32) {
            int signal = code - 128;
            return "killed by signal " + signal + switch (signal) {
                case 9 -> " (SIGKILL)";
                case 15 -> " (SIGTERM)";
                case 2 -> " (SIGINT)";
                case 6 -> " (SIGABRT)";
                default -> "";
            };
        }
        return "exit code " + code;
    }
}
