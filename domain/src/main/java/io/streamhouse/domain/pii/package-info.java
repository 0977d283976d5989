/**
 * Personal data at the edges: what a card number (PAN) looks like in text, so that every edge can keep one off the
 * log ({@link io.streamhouse.domain.pii.CardNumbers}). Pure JDK.
 */
package io.streamhouse.domain.pii;
