package io.streamhouse.security.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientSettingsTest {

    private static final String BOOTSTRAP = "127.0.0.1:9092";

    @TempDir
    Path credentials;

    private static KafkaClientSettings settings(KafkaPrincipal principal, Map<String, String> environment) {
        return KafkaClientSettings.from(principal, environment::get);
    }

    private Map<String, String> sasl(String mechanism) throws IOException {
        Files.writeString(credentials.resolve("serving.password"), "0a1b2c3d\n");
        Map<String, String> env = new HashMap<>();
        env.put(KafkaClientSettings.SECURITY_PROTOCOL_ENV, "SASL_PLAINTEXT");
        env.put(KafkaClientSettings.CREDENTIALS_DIR_ENV, credentials.toString());
        if (mechanism != null) {
            env.put(KafkaClientSettings.SASL_MECHANISM_ENV, mechanism);
        }
        return env;
    }

    @Test
    void withoutSettingsEveryClientGetsPlaintextAndNothingElse() {
        KafkaClientSettings plain = settings(KafkaPrincipal.INGEST, Map.of());

        assertThat(plain.security()).containsExactly(Map.entry(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT"));
        assertThat(plain.producer(BOOTSTRAP, Map.of(ProducerConfig.ACKS_CONFIG, "all"))).containsExactlyInAnyOrderEntriesOf(Map.of(
                CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP, ProducerConfig.ACKS_CONFIG, "all",
                CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT"));
        assertThat(plain.admin(BOOTSTRAP)).containsOnlyKeys(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                CommonClientConfigs.SECURITY_PROTOCOL_CONFIG);
    }

    @Test
    void withSaslEveryClientGetsTheMechanismAndItsPrincipalsCredentials() throws IOException {
        KafkaClientSettings serving = settings(KafkaPrincipal.SERVING, sasl(null));

        Map<String, Object> consumer = serving.consumer(BOOTSTRAP, Map.of("group.id", "g"));
        assertThat(consumer)
                .containsEntry(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT")
                .containsEntry(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512")
                .containsEntry("group.id", "g");
        // Kafka itself reads the JAAS line as the serving user's SCRAM login.
        Map<String, Object> jaas = Map.of(SaslConfigs.SASL_JAAS_CONFIG,
                new Password((String) consumer.get(SaslConfigs.SASL_JAAS_CONFIG)));
        var context = JaasContext.loadClientContext(jaas);
        assertThat(context.configurationEntries()).singleElement().satisfies(entry -> {
            assertThat(entry.getLoginModuleName()).isEqualTo("org.apache.kafka.common.security.scram.ScramLoginModule");
            Map<String, Object> options = new HashMap<>(entry.getOptions());
            assertThat(options).containsEntry("username", "serving").containsEntry("password", "0a1b2c3d");
        });
        // A producer accepts the whole configuration, types and all.
        Map<String, Object> producer = serving.producer(BOOTSTRAP, Map.of(
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
        assertThat(new ProducerConfig(producer).getString(SaslConfigs.SASL_MECHANISM)).isEqualTo("SCRAM-SHA-512");
    }

    @Test
    void plainMechanismUsesThePlainLoginModule() throws IOException {
        KafkaClientSettings serving = settings(KafkaPrincipal.SERVING, sasl("PLAIN"));

        assertThat(serving.security().get(SaslConfigs.SASL_JAAS_CONFIG))
                .startsWith("org.apache.kafka.common.security.plain.PlainLoginModule required username=\"serving\"");
        assertThat(serving.toString()).doesNotContain("0a1b2c3d");
    }

    @Test
    void prefixedFormsForConnectFlinkAndQuarkus() throws IOException {
        KafkaClientSettings connect = settings(KafkaPrincipal.SERVING, sasl(null));

        Map<String, String> worker = connect.connectWorker(BOOTSTRAP, Map.of("group.id", "connect"));
        for (String prefix : new String[] {"", "producer.", "consumer.", "admin."}) {
            assertThat(worker).containsEntry(prefix + "security.protocol", "SASL_PLAINTEXT")
                    .containsEntry(prefix + "sasl.mechanism", "SCRAM-SHA-512")
                    .containsKey(prefix + "sasl.jaas.config");
        }
        assertThat(worker).containsEntry("bootstrap.servers", BOOTSTRAP).containsEntry("group.id", "connect");
        // Connect keeps its worker properties in a file and connector configurations on a topic: neither gets the
        // password, only a reference the worker's DirectoryConfigProvider resolves from the credentials directory.
        String reference = "${dir:" + credentials.toAbsolutePath().normalize() + ":serving.password}";
        assertThat(worker).containsEntry("config.providers", "dir")
                .containsEntry("config.providers.dir.param.allowed.paths", credentials.toAbsolutePath().normalize().toString());
        assertThat(worker.values()).noneMatch(v -> v.contains("0a1b2c3d"));
        assertThat(worker.get("sasl.jaas.config")).contains("password=\"" + reference + "\"");
        assertThat(connect.connectorSecurity("iceberg.kafka.")).containsOnlyKeys("iceberg.kafka.security.protocol",
                "iceberg.kafka.sasl.mechanism", "iceberg.kafka.sasl.jaas.config");
        assertThat(connect.connectorSecurity("iceberg.kafka.").get("iceberg.kafka.sasl.jaas.config")).contains(reference)
                .doesNotContain("0a1b2c3d");

        Properties own = new Properties();
        own.setProperty("linger.ms", "0");
        assertThat(connect.flink(own)).containsEntry("linger.ms", "0").containsEntry("security.protocol", "SASL_PLAINTEXT")
                .doesNotContainKey("bootstrap.servers");
        assertThat(connect.security("kafka.")).containsOnlyKeys("kafka.security.protocol", "kafka.sasl.mechanism",
                "kafka.sasl.jaas.config");
    }

    @Test
    void streamsGetsOwnSettingsBootstrapAndSecurity() {
        Properties own = new Properties();
        own.put("application.id", "app");
        own.put("consumer.session.timeout.ms", 10_000);

        Properties streams = settings(KafkaPrincipal.DECISIONS, Map.of()).streams(BOOTSTRAP, own);

        assertThat(streams).containsEntry("application.id", "app").containsEntry("consumer.session.timeout.ms", 10_000)
                .containsEntry("bootstrap.servers", BOOTSTRAP).containsEntry("security.protocol", "PLAINTEXT");
    }

    @Test
    void aClientCannotSetItsOwnSecurity() {
        KafkaClientSettings plain = settings(KafkaPrincipal.REPLAY, Map.of());
        Properties streams = new Properties();
        streams.put("main.consumer.sasl.jaas.config", "x");

        assertThatThrownBy(() -> plain.producer(BOOTSTRAP, Map.of("security.protocol", "SASL_PLAINTEXT")))
                .hasMessageContaining("security.protocol is set by KafkaClientSettings");
        assertThatThrownBy(() -> plain.streams(BOOTSTRAP, streams)).hasMessageContaining("main.consumer.sasl.jaas.config");
        assertThatThrownBy(() -> plain.connectWorker(BOOTSTRAP, Map.of("consumer.ssl.truststore.location", "x")))
                .hasMessageContaining("consumer.ssl.truststore.location");
        assertThatThrownBy(() -> plain.admin(" ")).hasMessageContaining("bootstrap servers are required");
        assertThat(KafkaClientSettings.isSecuritySetting("restore.consumer.ssl.keystore.location")).isTrue();
        assertThat(KafkaClientSettings.isSecuritySetting("consumer.session.timeout.ms")).isFalse();
    }

    @Test
    void invalidOrIgnoredSettingsFailNamingTheSetting() throws IOException {
        assertThatThrownBy(() -> settings(KafkaPrincipal.CEP, Map.of(KafkaClientSettings.SECURITY_PROTOCOL_ENV, "SSL")))
                .hasMessageContaining("STREAMHOUSE_KAFKA_SECURITY_PROTOCOL=SSL is not supported");
        assertThatThrownBy(() -> settings(KafkaPrincipal.CEP, Map.of(KafkaClientSettings.SASL_MECHANISM_ENV, "PLAIN")))
                .hasMessageContaining("STREAMHOUSE_KAFKA_SASL_MECHANISM is set but STREAMHOUSE_KAFKA_SECURITY_PROTOCOL is unset");
        assertThatThrownBy(() -> settings(KafkaPrincipal.CEP, Map.of(KafkaClientSettings.SECURITY_PROTOCOL_ENV, "SASL_PLAINTEXT")))
                .hasMessageContaining("STREAMHOUSE_KAFKA_CREDENTIALS_DIR is required").hasMessageContaining("cep.password");
        assertThatThrownBy(() -> settings(KafkaPrincipal.SERVING, sasl("GSSAPI")))
                .hasMessageContaining("STREAMHOUSE_KAFKA_SASL_MECHANISM=GSSAPI is not supported");
        assertThatThrownBy(() -> settings(KafkaPrincipal.CEP, sasl(null)))
                .hasMessageContaining("no password for Kafka user cep");
        Files.writeString(credentials.resolve("serving.password"), "pass\"word");
        Map<String, String> quoted = sasl(null);
        Files.writeString(credentials.resolve("serving.password"), "pass\"word");
        assertThatThrownBy(() -> settings(KafkaPrincipal.SERVING, quoted)).hasMessageContaining("without quotes");
    }

    @Test
    void systemPropertyNamesFollowTheEnvironmentNames() {
        assertThat(KafkaClientSettings.propertyName(KafkaClientSettings.SECURITY_PROTOCOL_ENV))
                .isEqualTo("streamhouse.kafka.security.protocol");
        assertThat(KafkaClientSettings.propertyName(KafkaClientSettings.CREDENTIALS_DIR_ENV))
                .isEqualTo("streamhouse.kafka.credentials.dir");
    }
}
