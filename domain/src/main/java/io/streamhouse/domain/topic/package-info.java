/** The typed topic catalog: names, key and value types, partitions, cleanup and retention of every topic. */
package io.streamhouse.domain.topic;
