package io.streamhouse.api.serving;

import org.apache.kafka.streams.state.HostInfo;

import java.util.Optional;

/** Asks another instance's internal endpoint; empty when it cannot be reached or does not answer in time. */
public interface Forwarder {
    Optional<byte[]> get(HostInfo host, String pathAndQuery);
}
