package io.streamhouse.loadtests.score;

import io.streamhouse.domain.event.Alert;
import io.streamhouse.loadtests.generator.GeneratedEvent;
import io.streamhouse.loadtests.generator.Generation;

import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which alerts a generation caused: those that name at least one of its events among their matched events. Alerts of
 * other traffic on the same stack (its demo, a user's own payments, an earlier generation with another seed) name no
 * event of this one and are left out instead of counting as extras; an alert that mixes this generation's events with
 * others' is in (it is this generation's detection, right or wrong). Event ids rather than subjects or an event-time
 * range: the generator's ids derive from its seed and position, so another run's cannot collide, while subjects and
 * times of two runs can (same seed, or a demo inside the generation's time range).
 */
public final class GenerationScope implements Predicate<Alert> {
    private final Set<String> eventIds;

    public GenerationScope(Set<String> eventIds) {
        this.eventIds = Set.copyOf(eventIds);
    }

    public static GenerationScope of(Generation g) {
        Set<String> ids = new HashSet<>(g.events().size() * 2);
        for (GeneratedEvent e : g.events()) {
            ids.add(e.eventId());
        }
        return new GenerationScope(ids);
    }

    @Override
    public boolean test(Alert a) {
        return a.getMatchedEventIds().stream().anyMatch(eventIds::contains);
    }

    public boolean contains(String eventId) {
        return eventIds.contains(eventId);
    }

    public int events() {
        return eventIds.size();
    }
}
