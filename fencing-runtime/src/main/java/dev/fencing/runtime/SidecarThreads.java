package dev.fencing.runtime;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The maintenance and relay loops of a door ({@link FencedWorkers} or a {@link QueueRuntime}), each
 * on a daemon thread of its own, and what they did. The door decides when each stops: maintenance
 * first, the relay after the last commits, so that its last round sends what they wrote.
 */
final class SidecarThreads {

  final @Nullable MaintenanceLoop maintenanceLoop;
  private final @Nullable Thread maintainer;
  final @Nullable RelayLoop relayLoop;
  private final @Nullable Thread relayer;

  /**
   * Makes the loops {@code sidecars} configures, with threads named after {@code owner}, not yet
   * started; the relay sends up to {@code relayMax} messages per call.
   *
   * @throws IllegalArgumentException if a setting of {@code sidecars} is out of range
   */
  SidecarThreads(Sidecars sidecars, String owner, int relayMax) {
    this.maintenanceLoop = sidecars.maintenanceLoop();
    this.relayLoop = sidecars.relayLoop(relayMax);
    this.maintainer = unstarted("fencing-maintenance-" + owner, maintenanceLoop);
    this.relayer = unstarted("fencing-relay-" + owner, relayLoop);
  }

  private static @Nullable Thread unstarted(String name, @Nullable Loop loop) {
    return loop == null ? null : Thread.ofPlatform().daemon().name(name).unstarted(loop);
  }

  void start() {
    for (Thread t : new Thread[] {maintainer, relayer}) {
      if (t != null) {
        t.start();
      }
    }
  }

  /** Stops maintenance after its round: a round is one short transaction, let it end. */
  void stopMaintenance() {
    if (maintenanceLoop != null) {
      maintenanceLoop.stop();
    }
  }

  /** Stops the relay after one last round. */
  void stopRelay() {
    if (relayLoop != null) {
      relayLoop.stop();
    }
  }

  /** Waits up to {@code timeout} for each started thread to end. */
  void join(Duration timeout) {
    joinRelay(timeout);
    if (maintainer != null) {
      Loop.join(maintainer, timeout);
    }
  }

  /** Waits up to {@code timeout} for the relay's thread to end. */
  void joinRelay(Duration timeout) {
    if (relayer != null) {
      Loop.join(relayer, timeout);
    }
  }
}
