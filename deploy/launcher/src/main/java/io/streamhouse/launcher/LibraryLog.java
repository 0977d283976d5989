package io.streamhouse.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.FileHandler;
import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * The launcher's terminal carries its own lines only: what the libraries and the supervisor log through
 * {@code java.util.logging} (and {@code System.Logger}, which it backs) goes to {@code <data>/logs/launcher.log}.
 */
final class LibraryLog {

    /** Sends the root logger's records to {@code file} (appended); if that cannot be opened they stay on the terminal. */
    static void toFile(Path file) {
        try {
            Files.createDirectories(file.getParent());
            FileHandler handler = new FileHandler(file.toString(), true);
            handler.setFormatter(new SimpleFormatter());
            Logger root = LogManager.getLogManager().getLogger("");
            for (Handler h : root.getHandlers()) {
                root.removeHandler(h);
            }
            root.addHandler(handler);
        } catch (IOException | RuntimeException e) {
            System.err.println("cannot write " + file + " (" + e.getMessage() + "): library logging stays on the terminal");
        }
    }

    private LibraryLog() {
    }
}
