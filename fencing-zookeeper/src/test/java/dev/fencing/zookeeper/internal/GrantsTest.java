package dev.fencing.zookeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The interruption of a session loses only that session's grants. A process that was frozen past
 * its session timeout wakes up with Curator's events still queued; its next acquire may already run
 * in a new session, and the old session's "suspended" and "lost", delivered after it, once marked
 * that new grant lost too: the next acquire of the same resource by the same process then deleted
 * the node of an ownership it had just handed out and acquired over it (the ZooKeeper producer
 * property suite found it in CI: "P1 acquired at epoch 250 while P1 held it at epoch 247 under a
 * long lease it confirmed 42 ms ago").
 */
class GrantsTest {

  private static final long OLD_SESSION = 0x1000L;
  private static final long NEW_SESSION = 0x2000L;

  @Test
  void anInterruptionLosesTheGrantsOfItsSessionAndNoOthers() {
    ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    try {
      Grants grants = new Grants(timers, null, null, null);
      long later = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      Grant before = new Grant("a", "twin", 7, null, OLD_SESSION, later);
      Grant after = new Grant("b", "twin", 9, null, NEW_SESSION, later);
      grants.add(before);
      grants.add(after);

      grants.loseAll(OLD_SESSION);

      assertThat(before.lost).as("the interrupted session's grant").isTrue();
      assertThat(after.lost).as("a grant of the session that replaced it").isFalse();

      grants.loseAll(NEW_SESSION);

      assertThat(after.lost).as("once its own session is interrupted").isTrue();
    } finally {
      timers.shutdownNow();
    }
  }
}
