package io.streamhouse.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Runs another main class, and exits the JVM (running its shutdown hooks, so Quarkus stops cleanly) when standard
 * input reaches end of file — which happens when the parent closes the pipe or dies, even by {@code kill -9}.
 * This is how a child app never outlives the launcher. JDK-only on purpose: it is put first on a foreign
 * classpath ({@code quarkus-run.jar}).
 * <p>Usage: {@code java -cp launcher.jar:app.jar io.streamhouse.launcher.ExitWithParent <main class> [args...]}
 */
public final class ExitWithParent {
    public static void main(String[] args) throws Throwable {
        if (args.length < 1) {
            throw new IllegalArgumentException("usage: ExitWithParent <main class> [args...]");
        }
        Thread watchdog = new Thread(() -> {
            try (InputStream in = System.in) {
                byte[] buffer = new byte[256];
                while (in.read(buffer) >= 0) {
                    // The parent writes nothing; any bytes are ignored.
                }
            } catch (IOException ignored) {
                // A broken pipe means the same as end of file: the parent is gone.
            }
            System.exit(0);
        }, "exit-with-parent");
        watchdog.setDaemon(true);
        watchdog.start();
        Class<?> main = Class.forName(args[0]);
        Method method = main.getMethod("main", String[].class);
        method.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    }

    private ExitWithParent() {
    }
}
