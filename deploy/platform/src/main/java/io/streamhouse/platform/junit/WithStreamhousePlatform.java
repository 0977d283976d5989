package io.streamhouse.platform.junit;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test class that takes the shared {@link io.streamhouse.platform.EmbeddedPlatform} as a constructor or
 * method parameter; see {@link StreamhousePlatformExtension}. Where a module runs its test classes side by side, the
 * classes that share the platform still run one at a time ({@link #LOCK}); a class with a platform of its own runs
 * beside them.
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(StreamhousePlatformExtension.class)
@ResourceLock(WithStreamhousePlatform.LOCK)
public @interface WithStreamhousePlatform {
    /** The lock every class on the shared platform holds while it runs. */
    String LOCK = "io.streamhouse.platform.shared";

    /**
     * Held by a class that kills or restarts the shared platform's Connect worker. A class that runs beside others
     * ({@code @Execution(CONCURRENT)}) and holds a lock also runs its own methods one at a time.
     */
    String CONNECT_LOCK = "io.streamhouse.platform.shared.connect";
}
