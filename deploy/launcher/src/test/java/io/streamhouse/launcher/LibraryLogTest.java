package io.streamhouse.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

class LibraryLogTest {

    @Test
    void systemLoggerRecordsGoToTheLogFileInsteadOfTheTerminal(@TempDir Path dir) throws Exception {
        Logger root = LogManager.getLogManager().getLogger("");
        List<Handler> before = List.of(root.getHandlers());
        Path file = dir.resolve("logs").resolve("launcher.log");
        try {
            LibraryLog.toFile(file);
            System.getLogger("io.streamhouse.broker.BrokerProcess").log(System.Logger.Level.INFO, "Kafka broker ready in 3 ms");
            for (Handler h : root.getHandlers()) {
                h.flush();
            }
            assertThat(root.getHandlers()).hasSize(1).noneMatch(before::contains);
            assertThat(Files.readString(file)).contains("Kafka broker ready in 3 ms");
        } finally {
            for (Handler h : root.getHandlers()) {
                root.removeHandler(h);
                h.close();
            }
            before.forEach(root::addHandler);
        }
    }
}
