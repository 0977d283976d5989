package io.streamhouse.platform.junit;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test class that takes the shared {@link io.streamhouse.platform.EmbeddedPlatform} as a constructor or
 * method parameter; see {@link StreamhousePlatformExtension}.
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(StreamhousePlatformExtension.class)
public @interface WithStreamhousePlatform {
}
