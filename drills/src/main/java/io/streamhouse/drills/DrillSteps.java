package io.streamhouse.drills;

import io.streamhouse.replay.Endpoints;
import io.streamhouse.replay.Groups;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What every drill asks of the stack between its load and its checks: a group's lag, whether a group has members,
 * waiting until the consumers caught up, the machine's load average. Each reads and decides nothing about the drill.
 */
final class DrillSteps {
    /** Records behind, summed over the group's partitions; {@code Long.MAX_VALUE} while the broker cannot say. */
    static long lag(Admin admin, String group) {
        try {
            Map<TopicPartition, Long> committed = Groups.committed(admin, group);
            Set<String> topics = new HashSet<>();
            committed.keySet().forEach(tp -> topics.add(tp.topic()));
            Map<TopicPartition, Long> ends = Groups.ends(admin, topics);
            long lag = 0;
            for (var e : committed.entrySet()) {
                lag += Math.max(0, ends.getOrDefault(e.getKey(), e.getValue()) - e.getValue());
            }
            return lag;
        } catch (RuntimeException brokerAway) {
            return Long.MAX_VALUE;
        }
    }

    static boolean hasMembers(Admin admin, String group) throws Exception {
        Map<String, ConsumerGroupDescription> d;
        try {
            d = admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException) {
                return false; // a stack started --without lake never had the sink's group (broker 4.x says so, not "empty")
            }
            throw e;
        }
        return d.containsKey(group) && !d.get(group).members().isEmpty();
    }

    /** The load has ended: wait until the watched groups have consumed (almost) everything, so the checks see the end state. */
    static void awaitQuiet(Admin admin, List<String> groups, Duration timeout) throws InterruptedException {
        long until = System.currentTimeMillis() + timeout.toMillis();
        while (System.currentTimeMillis() < until) {
            // A transaction marker after the last committed record can leave one offset per partition.
            if (groups.stream().allMatch(g -> lag(admin, g) <= 20)) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(250);
        }
        throw new Endpoints.EnvironmentException(groups + " did not catch up within " + timeout.toSeconds() + " s after the load");
    }

    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException | UncheckedIOException e) {
            return "unknown";
        }
    }

    private DrillSteps() {
    }
}
