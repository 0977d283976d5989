package io.streamhouse.drills;

/**
 * One check a drill makes once its load has ended and the consumers caught up. It reads the stack and says what it
 * found (for the report) and why it failed, if it did; it never stops the drill, so every check runs and is reported.
 */
interface Check<T> {
    CheckResult<T> run(CheckContext on) throws Exception;
}
