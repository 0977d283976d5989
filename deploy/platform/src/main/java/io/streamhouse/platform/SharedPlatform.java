package io.streamhouse.platform;

/**
 * One {@link EmbeddedPlatform} per JVM (per class loader: a Quarkus test JVM has one for its app and one for the plain
 * test classes, each in a directory of its own), started on first use with {@link PlatformOptions#forTests()}, for test code
 * that cannot use {@link io.streamhouse.platform.junit.StreamhousePlatformExtension} (e.g. a Quarkus test resource).
 * The extension hands out the same instance.
 *
 * <p>Guarantees: {@link #get()} is thread-safe and starts at most one platform at a time; if the current one was
 * closed (the JUnit root store closes it at the end of a run), the next {@link #get()} starts a new one. A JVM
 * shutdown hook closes the last one; the broker and PostgreSQL also guard themselves against {@code kill -9}.
 */
public final class SharedPlatform {

    private static EmbeddedPlatform instance;
    private static boolean hookRegistered;

    private SharedPlatform() {
    }

    public static synchronized EmbeddedPlatform get() {
        if (instance == null || instance.isClosed()) {
            instance = EmbeddedPlatform.start(PlatformOptions.forTests());
            if (!hookRegistered) {
                Runtime.getRuntime().addShutdownHook(new Thread(SharedPlatform::closeCurrent, "streamhouse-shared-platform-stop"));
                hookRegistered = true;
            }
        }
        return instance;
    }

    private static void closeCurrent() {
        EmbeddedPlatform current;
        synchronized (SharedPlatform.class) {
            current = instance;
        }
        if (current != null) {
            current.close();
        }
    }
}
