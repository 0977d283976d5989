package io.streamhouse.launcher;

import java.util.function.Consumer;
import java.util.Optional;
import java.util.Set;

/**
 * One part of {@code up} (the platform, CDC, the apps, more instances, the CEP job, the lake, the query service):
 * started once the steps it needs are ready, beside any other step whose needs are met, and returning once it is
 * ready. A step this stack runs without says so instead.
 */
interface StartStep {

    /** The component's name in the start-up timing line. */
    String name();

    /**
     * The names of the steps that must be ready before this one starts; each comes earlier in the list of steps. A
     * name not in the list (more instances when there is one of each) or a step skipped counts as ready.
     */
    default Set<String> needs() {
        return Set.of();
    }

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
