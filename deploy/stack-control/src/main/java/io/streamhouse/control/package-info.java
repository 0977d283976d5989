/**
 * The stack's control protocol, JDK only: {@link io.streamhouse.control.StatusFile} ({@code <data>/status.json},
 * each component's {@link io.streamhouse.control.ChildStatus} and the {@link io.streamhouse.control.HealthCheck}s of
 * what runs inside them) and {@link io.streamhouse.control.ControlChannel} (requests such as {@code kill api} to a
 * running launcher through files in {@code <data>/control/}). Written and served by the supervisor and the launcher;
 * read and used by {@code ./streamhouse status}, the drills and replay.
 */
package io.streamhouse.control;
