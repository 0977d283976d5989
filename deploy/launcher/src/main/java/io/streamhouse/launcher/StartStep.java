package io.streamhouse.launcher;

import java.util.function.Consumer;
import java.util.Optional;

/**
 * One part of {@code up} (the platform, CDC, the apps, more instances, the CEP job, the lake, the query service):
 * started after the steps before it, returning once it is ready. A step this stack runs without says so instead.
 */
interface StartStep {

    /** The component's name in the start-up timing line. */
    String name();

    /**
     * Empty when this stack runs the step. Otherwise what running without it needs (the lake's connector removed, for
     * one), done here, and the line that says what is not started and what that means.
     */
    default Optional<String> skip(StartContext context) {
        return Optional.empty();
    }

    /** The line printed before the step starts. */
    String announce(StartContext context);

    /** Starts the component and returns once it is ready; {@code out} takes the lines that say where it is. */
    void start(StartContext context, Consumer<String> out) throws Exception;
}
