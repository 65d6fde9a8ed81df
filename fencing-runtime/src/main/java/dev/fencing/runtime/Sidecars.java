package dev.fencing.runtime;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedReceiver;
import dev.fencing.Maintenance;
import dev.fencing.internal.Validate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What runs beside the work of a queue, as a builder configures it: maintenance and the outbox
 * relay. {@link QueueRuntime.Builder} and {@link FencedWorkers.Builder} each hold one and make
 * their loops from it, checked the same way.
 */
final class Sidecars {

  private @Nullable Maintenance maintenance;
  private Duration maintenanceEvery = Duration.ofMinutes(1);
  private final List<RelayLoop.Route> relays = new ArrayList<>();
  private Duration relayEvery = Duration.ofMillis(200);

  void maintenance(Maintenance maintenance, Duration every) {
    this.maintenance = Objects.requireNonNull(maintenance, "maintenance");
    this.maintenanceEvery = every;
  }

  void relay(FencedOutbox outbox, String destination, FencedOutbox.Sender sender) {
    Objects.requireNonNull(outbox, "outbox");
    Objects.requireNonNull(sender, "sender");
    relays.add(new RelayLoop.Route(destination, max -> outbox.relay(destination, sender, max)));
  }

  void relay(FencedOutbox outbox, String destination, FencedReceiver receiver) {
    Objects.requireNonNull(outbox, "outbox");
    Objects.requireNonNull(receiver, "receiver");
    relays.add(new RelayLoop.Route(destination, max -> outbox.relay(destination, receiver, max)));
  }

  void relayEvery(Duration every) {
    this.relayEvery = every;
  }

  /**
   * Returns the maintenance loop, or null without maintenance.
   *
   * @throws IllegalArgumentException if its pace is out of range
   */
  @Nullable MaintenanceLoop maintenanceLoop() {
    if (maintenance == null) {
      return null;
    }
    Validate.between(
        "maintenance every", maintenanceEvery, Duration.ofSeconds(1), Validate.MAX_LEASE);
    return new MaintenanceLoop(maintenance, maintenanceEvery);
  }

  /**
   * Returns the relay loop sending up to {@code max} messages per call, or null without a relay.
   *
   * @throws IllegalArgumentException if a destination is not an identifier or was given twice, or
   *     the relay's pace is out of range
   */
  @Nullable RelayLoop relayLoop(int max) {
    if (relays.isEmpty()) {
      return null;
    }
    Set<String> destinations = new HashSet<>();
    for (RelayLoop.Route route : relays) {
      Validate.identifier("relay destination", route.destination());
      if (!destinations.add(route.destination())) {
        throw new IllegalArgumentException(
            "relay destination must be relayed once, but "
                + Validate.quote(route.destination())
                + " was given twice");
      }
    }
    Validate.between("relayEvery", relayEvery, Duration.ofMillis(1), Duration.ofHours(24));
    return new RelayLoop(relays, relayEvery, max);
  }
}
