/**
 * Replay: rebuild every projection and detector from the log, verify the rebuild equals the live state, and drill
 * failures (kill, wipe, restart). Reserved by the fixed module layout; nothing is implemented here yet. What it
 * relies on is in place: every event topic keeps its history forever, and decisions are deterministic functions of
 * the log (event ids and event times derived from their causes).
 */
package io.streamhouse.replay;
