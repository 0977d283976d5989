package io.streamhouse.api;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamhouse.api.streams.InstanceIdentity;
import io.streamhouse.platform.junit.QuarkusPlatformResource;
import jakarta.inject.Inject;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.MemberDescription;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The running api's decision application is in its group as this instance's static member, under the derived id. */
@QuarkusTest
@QuarkusTestResource(value = QuarkusPlatformResource.class, restrictToAnnotatedClass = false)
class StaticMembershipIT {
    @Inject
    ApiConfig config;

    @Test
    void theDecisionAppJoinsAsThisInstancesStaticMember() {
        RequestLog.awaitReady();
        String id = config.instanceId().orElseThrow();
        assertThat(ConfigProvider.getConfig().getValue(InstanceIdentity.DECISION_GROUP_INSTANCE_ID, String.class)).isEqualTo(id);

        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafka().bootstrapServers()))) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(admin
                    .describeConsumerGroups(List.of("streamhouse-api")).all().get().get("streamhouse-api").members())
                    .extracting(MemberDescription::groupInstanceId)
                    .containsExactly(java.util.Optional.of(id + "-1")));
        }
    }
}
