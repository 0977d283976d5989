/**
 * Drills: one fault (or a burst) under load against the running local stack, then the checks that nothing was lost or
 * doubled and that a fresh rebuild equals live. Run as {@code ./streamhouse drill …} ({@link io.streamhouse.drills.DrillsCli});
 * docs/drills.md.
 */
package io.streamhouse.drills;
