package io.streamhouse.loadtests.generator;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamhouse.domain.event.VehicleTelemetry;
import org.eclipse.paho.client.mqttv3.IMqttActionListener;
import org.eclipse.paho.client.mqttv3.IMqttToken;
import org.eclipse.paho.client.mqttv3.MqttAsyncClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

import java.io.IOException;
import java.net.URI;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Publishes vehicle telemetry the way a truck's unit does: one JSON reading ({@link EdgeJson#telemetry}) per message
 * on {@code fleet/{vehicleId}/telemetry}, QoS 1, which ingest's MQTT bridge turns into events. A message counts as
 * sent when the MQTT broker acknowledged it (PUBACK); whether ingest then wrote it is for the bridge's own
 * guarantees (it acknowledges only after Kafka has it). At most {@code maxInFlight} unacknowledged messages; the
 * first failure fails the run. Loopback brokers only.
 */
public final class MqttSink implements Sink {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final MqttAsyncClient client;
    private final String url;
    private final int maxInFlight;
    private final Semaphore inFlight;
    private final AtomicReference<String> failure = new AtomicReference<>();

    public MqttSink(String brokerUrl, int maxInFlight) throws IOException {
        URI uri = URI.create(brokerUrl.trim());
        if (!"tcp".equalsIgnoreCase(uri.getScheme()) || !Loopback.isLoopbackHost(uri.getHost())) {
            throw new IllegalArgumentException("the generator sends load to loopback addresses only; MQTT broker '"
                    + brokerUrl + "' must be tcp://localhost, 127.x.x.x or [::1]");
        }
        if (maxInFlight < 1 || maxInFlight > 1_000) {
            throw new IllegalArgumentException("MQTT in-flight window must be 1..1000, was " + maxInFlight);
        }
        this.url = brokerUrl;
        this.maxInFlight = maxInFlight;
        this.inFlight = new Semaphore(maxInFlight);
        try {
            this.client = new MqttAsyncClient(brokerUrl, "streamhouse-generator-" + UUID.randomUUID(), new MemoryPersistence());
            MqttConnectOptions options = new MqttConnectOptions();
            options.setCleanSession(true);
            options.setMaxInflight(maxInFlight);
            options.setConnectionTimeout(5);
            client.connect(options).waitForCompletion(10_000);
        } catch (MqttException e) {
            throw new IOException("cannot connect to the MQTT broker " + brokerUrl + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String describe() {
        return "mqtt " + url;
    }

    @Override
    public Set<EventKind> supportedKinds() {
        return EnumSet.of(EventKind.VEHICLE_TELEMETRY);
    }

    @Override
    public void send(GeneratedEvent e) throws IOException {
        throwIfFailed();
        if (!(e.value() instanceof VehicleTelemetry t)) {
            throw new UnsupportedOperationException(describe() + " cannot send " + e.kind() + " events: vehicles publish telemetry only");
        }
        MqttMessage message = new MqttMessage(JSON.writeValueAsBytes(EdgeJson.telemetry(t)));
        message.setQos(1);
        try {
            inFlight.acquire();
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while publishing " + e.eventId(), ie);
        }
        try {
            client.publish("fleet/" + t.getVehicleId() + "/telemetry", message, null, new IMqttActionListener() {
                @Override
                public void onSuccess(IMqttToken token) {
                    inFlight.release();
                }

                @Override
                public void onFailure(IMqttToken token, Throwable error) {
                    failure.compareAndSet(null, e.eventId() + ": " + error);
                    inFlight.release();
                }
            });
        } catch (MqttException ex) {
            inFlight.release();
            throw new IOException("publishing " + e.eventId() + " to " + url + " failed: " + ex.getMessage(), ex);
        }
    }

    @Override
    public void flush(long deadlineNanos) throws IOException {
        try {
            long wait = Math.max(0, deadlineNanos - System.nanoTime());
            if (!inFlight.tryAcquire(maxInFlight, wait, TimeUnit.NANOSECONDS)) {
                throw new IOException(describe() + ": messages still unacknowledged at the deadline");
            }
            inFlight.release(maxInFlight);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the MQTT broker", ie);
        }
        throwIfFailed();
    }

    private void throwIfFailed() throws IOException {
        String f = failure.get();
        if (f != null) {
            throw new IOException("the MQTT broker refused a message: " + f);
        }
    }

    @Override
    public void close() {
        try {
            if (client.isConnected()) {
                client.disconnect().waitForCompletion(5_000);
            }
            client.close();
        } catch (MqttException e) {
            // closing a client that failed: nothing left to release
        }
    }
}
