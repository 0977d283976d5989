package io.streamhouse.ingest.mqtt;

import io.streamhouse.domain.pii.CardNumbers;
import io.quarkus.runtime.Startup;
import io.streamhouse.ingest.IngestConfig;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.paho.client.mqttv3.IMqttActionListener;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.IMqttToken;
import org.eclipse.paho.client.mqttv3.MqttAsyncClient;
import org.eclipse.paho.client.mqttv3.MqttCallbackExtended;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.jboss.logging.Logger;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Subscribes to vehicles' MQTT telemetry ({@code fleet/{vehicleId}/telemetry}, QoS 1) and hands each message to
 * {@link TelemetryMessages}. Off unless {@code streamhouse.mqtt.url} is set.
 *
 * <p><b>Guarantee: at least once, nothing silently dropped.</b> Acknowledgements are manual: a message is
 * acknowledged to the MQTT broker only after Kafka acknowledged either the reading or its dead letter. If neither
 * was acknowledged, the handler throws, Paho drops the connection, reconnects, and the broker redelivers every
 * unacknowledged message of the persistent session ({@code clean-session=false}, the default; the client id is
 * {@code client-id + "-" + instance-id}, stable across restarts of the instance, so the session survives them too).
 * A redelivered reading carries the same derived event id and is recognised by {@code AcceptedEvents} when it comes
 * back to this instance within the window; otherwise downstream de-duplicates by event id.
 *
 * <p>Messages are handled one at a time on Paho's callback thread, so the bridge has at most one write in flight
 * and needs no place in the HTTP in-flight bound; throughput is one Kafka round trip per message per instance, and
 * the default shared subscription ({@code $share/streamhouse-ingest/...}) spreads vehicles over instances. With
 * several instances, one vehicle's readings may reach the log out of arrival order; readers order by
 * {@code occurredAt}. The first connection is retried with backoff (1 s doubling to 30 s); after that Paho's
 * automatic reconnect does the same, and every (re)connection subscribes again.
 */
@ApplicationScoped
@Startup
public class MqttTelemetryBridge {
    private static final Logger LOG = Logger.getLogger(MqttTelemetryBridge.class);
    static final int QOS = 1;

    private final IngestConfig.Mqtt config;
    private final TelemetryMessages messages;
    private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "mqtt-bridge-connect");
        t.setDaemon(true);
        return t;
    });
    private volatile MqttAsyncClient client;
    private volatile boolean subscribed;
    private volatile boolean stopping;

    public MqttTelemetryBridge(IngestConfig config, TelemetryMessages messages) {
        this.config = config.mqtt();
        this.messages = messages;
    }

    @PostConstruct
    void start() {
        if (config.url().isEmpty() || config.url().get().isBlank()) {
            LOG.info("MQTT bridge off: streamhouse.mqtt.url is not set");
            return;
        }
        String clientId = clientId();
        try {
            client = new MqttAsyncClient(config.url().get(), clientId, new MemoryPersistence());
        } catch (MqttException e) {
            throw new IllegalArgumentException("streamhouse.mqtt.url " + config.url().get() + " is not usable: " + e.getMessage(), e);
        }
        client.setManualAcks(true);
        client.setCallback(new Callback());
        LOG.infof("MQTT bridge: connecting to %s as %s, subscribing to %s", config.url().get(), clientId, config.topicFilter());
        connect(1);
    }

    /** True while connected and subscribed: readings published now reach the log. */
    public boolean isSubscribed() {
        return subscribed;
    }

    String clientId() {
        String instance = config.instanceId().orElseGet(MqttTelemetryBridge::hostName);
        return config.clientId() + "-" + instance;
    }

    private void connect(long delaySeconds) {
        var options = new MqttConnectOptions();
        options.setCleanSession(config.cleanSession());
        options.setAutomaticReconnect(true);
        options.setMaxReconnectDelay(30_000);
        options.setKeepAliveInterval(30);
        options.setConnectionTimeout(10);
        // QoS 1 messages handled one at a time: a small window is enough, and bounds redelivery after a failure.
        options.setMaxInflight(10);
        try {
            client.connect(options, null, new IMqttActionListener() {
                @Override
                public void onSuccess(IMqttToken token) {
                    // connectComplete subscribes.
                }

                @Override
                public void onFailure(IMqttToken token, Throwable error) {
                    retry(delaySeconds, error);
                }
            });
        } catch (MqttException e) {
            retry(delaySeconds, e);
        }
    }

    private void retry(long delaySeconds, Throwable error) {
        if (stopping) {
            return;
        }
        LOG.warnf("MQTT bridge: cannot connect to %s (%s); retrying in %d s", config.url().orElse(""), error.getMessage(), delaySeconds);
        retries.schedule(() -> connect(Math.min(delaySeconds * 2, 30)), delaySeconds, TimeUnit.SECONDS);
    }

    private void subscribe() {
        try {
            client.subscribe(config.topicFilter(), QOS, null, new IMqttActionListener() {
                @Override
                public void onSuccess(IMqttToken token) {
                    int granted = token.getGrantedQos() == null || token.getGrantedQos().length == 0 ? -1 : token.getGrantedQos()[0];
                    if (granted == 0x80) {
                        LOG.errorf("MQTT bridge: the broker refused the subscription to %s", config.topicFilter());
                        return;
                    }
                    subscribed = true;
                    LOG.infof("MQTT bridge: subscribed to %s (QoS %d)", config.topicFilter(), granted);
                }

                @Override
                public void onFailure(IMqttToken token, Throwable error) {
                    LOG.errorf("MQTT bridge: could not subscribe to %s: %s", config.topicFilter(), error.getMessage());
                }
            });
        } catch (MqttException e) {
            LOG.errorf("MQTT bridge: could not subscribe to %s: %s", config.topicFilter(), e.getMessage());
        }
    }

    @PreDestroy
    void stop() {
        stopping = true;
        subscribed = false;
        retries.shutdownNow();
        if (client == null) {
            return;
        }
        try {
            if (client.isConnected()) {
                client.disconnect(2_000).waitForCompletion(3_000);
            }
        } catch (MqttException e) {
            LOG.debugf("MQTT bridge: disconnect: %s", e.getMessage());
        }
        try {
            client.close(true);
        } catch (MqttException e) {
            LOG.debugf("MQTT bridge: close: %s", e.getMessage());
        }
    }

    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "local";
        }
    }

    private final class Callback implements MqttCallbackExtended {
        @Override
        public void connectComplete(boolean reconnect, String serverUri) {
            LOG.infof("MQTT bridge: %s to %s", reconnect ? "reconnected" : "connected", serverUri);
            subscribe();
        }

        @Override
        public void connectionLost(Throwable cause) {
            subscribed = false;
            if (!stopping) {
                LOG.warnf(cause, "MQTT bridge: connection lost; reconnecting");
            }
        }

        @Override
        public void messageArrived(String topic, MqttMessage message) throws Exception {
            // Throws when the log acknowledged nothing: Paho then drops the connection without acknowledging, and
            // the broker redelivers after the reconnect.
            var outcome = messages.handle(topic, message.getPayload());
            if (outcome instanceof TelemetryMessages.DeadLettered dead) {
                LOG.warnf("MQTT bridge: message on %s sent to the dead-letter topic: %s", CardNumbers.mask(topic), dead.reason());
            }
            client.messageArrivedComplete(message.getId(), message.getQos());
        }

        @Override
        public void deliveryComplete(IMqttDeliveryToken token) {
            // The bridge publishes nothing.
        }
    }
}
