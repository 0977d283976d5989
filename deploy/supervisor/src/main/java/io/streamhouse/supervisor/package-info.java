/**
 * Child-process supervision, JDK only: {@link io.streamhouse.supervisor.ChildProcess} is one run of a child JVM
 * (start until ready, stop without orphans, {@code kill -9}); {@link io.streamhouse.supervisor.Supervisor} keeps
 * named {@link io.streamhouse.supervisor.SupervisedChild children} running with backoff and reports each change in
 * the states of {@code io.streamhouse.control} (deploy/stack-control), whose status file and control channel are how
 * {@code ./streamhouse status}, {@code kill}, {@code restart}, {@code stop} and {@code start} reach a running launcher.
 */
package io.streamhouse.supervisor;
