package io.streamhouse.platform.junit;

import io.streamhouse.platform.EmbeddedPlatform;
import io.streamhouse.platform.SharedPlatform;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Injects the JVM's shared {@link EmbeddedPlatform} into test constructors and methods that declare a parameter of
 * that type. Use it through {@link WithStreamhousePlatform}.
 *
 * <p>Guarantees: the platform starts lazily, on the first parameter that asks for it, once per test JVM (it is
 * {@link SharedPlatform#get()}); it is kept in the root {@link ExtensionContext.Store} as an {@link AutoCloseable}, so
 * JUnit closes it when the whole run ends, not after each class. Tests share the broker and the database: use
 * distinct topic names, consumer groups and tables per test.
 */
public final class StreamhousePlatformExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(StreamhousePlatformExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == EmbeddedPlatform.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return platform(extensionContext);
    }

    /** The shared platform, registered in the root store of this run. */
    public static EmbeddedPlatform platform(ExtensionContext context) {
        ExtensionContext.Store store = context.getRoot().getStore(NAMESPACE);
        EmbeddedPlatform platform = store.computeIfAbsent(EmbeddedPlatform.class, k -> SharedPlatform.get(), EmbeddedPlatform.class);
        if (platform.isClosed()) {
            // Closed by an earlier (nested) run's store or by hand: start over rather than hand out a dead one.
            platform = SharedPlatform.get();
            store.put(EmbeddedPlatform.class, platform);
        }
        return platform;
    }
}
