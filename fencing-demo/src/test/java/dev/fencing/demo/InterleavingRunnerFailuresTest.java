package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.fault.FlakyProxy;
import dev.fencing.testkit.property.Interleaving;
import dev.fencing.testkit.property.InterleavingAbortedException;
import dev.fencing.testkit.property.InterleavingRunner;
import dev.fencing.testkit.property.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The harness under bad conditions: it says which worker and which step, kills every process it
 * started, and leaves no orphan behind.
 */
class InterleavingRunnerFailuresTest {

  /** A handler that kills its own JVM, as a bug in user code might. */
  public static final class DiesInHandler extends PostgresBackend {
    @Override
    public String handle(Job job) {
      Runtime.getRuntime().halt(3);
      return "{}";
    }
  }

  @Test
  void aWorkerThatDiesUnexpectedlyIsNamedAndNothingIsLeftRunning() {
    PostgresFixture.Database db = PostgresFixture.get();
    List<Long> pids = new ArrayList<>();
    try (InterleavingRunner runner =
        new InterleavingRunner(db, DiesInHandler.class, "harness_dies")) {
      Interleaving interleaving =
          new Interleaving(
              2, 1, List.of(new Step.Claim(1, false), new Step.Stall(0), new Step.Deliver(1, 0)));
      assertThatThrownBy(() -> runner.run(interleaving))
          .isInstanceOf(InterleavingAbortedException.class)
          .hasMessageContaining("interleaving aborted at step 3 (w1 delivers under lease #0)")
          .hasMessageContaining("died");
      assertThat(runner.livePids()).isEmpty();
      pids.addAll(runner.pidsStarted());
    }
    assertNoneAlive(pids);
  }

  @Test
  void aDatabaseThatGoesAwayMidInterleavingIsReportedWithTheStep() throws Exception {
    PostgresFixture.Database db = PostgresFixture.get();
    FlakyProxy proxy = FlakyProxy.inFrontOf(db);
    PostgresFixture.Database viaProxy = proxy.database();
    try (InterleavingRunner runner =
        new InterleavingRunner(viaProxy, PostgresBackend.class, "harness_db")) {
      Thread cutter =
          Thread.ofVirtual()
              .start(
                  () -> {
                    awaitAClaim(db);
                    proxy.close();
                  });
      Interleaving interleaving =
          new Interleaving(
              2,
              1,
              List.of(
                  new Step.Claim(0, true),
                  new Step.LeasesRunOut(),
                  new Step.LeasesRunOut(),
                  new Step.Claim(1, false)));
      assertThatThrownBy(() -> runner.run(interleaving))
          .isInstanceOf(InterleavingAbortedException.class)
          .hasMessageMatching("(?s)interleaving aborted at step [1-4] \\(.*");
      cutter.join();
      assertThat(runner.livePids()).isEmpty();
      assertNoneAlive(runner.pidsStarted());
    } finally {
      proxy.close();
    }
  }

  /**
   * Waits, up to 60 s, until a job of the interleaving is running, as the operators' view of the
   * queues shows it on whichever engine the schema records; the schema appears only when the
   * runner's setup has made it, which can take seconds on a loaded machine.
   */
  private static void awaitAClaim(PostgresFixture.Database db) {
    PostgresFencing fencing =
        PostgresFencing.builder(db.dataSource())
            .schema("harness_db")
            .install(false)
            .transientRetries(0)
            .notifications(false)
            .build();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < end) {
      try {
        if (fencing.admin().queues(false).stream().anyMatch(q -> q.running() > 0)) {
          return;
        }
      } catch (RuntimeException e) {
        // the schema may not be installed yet
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static void assertNoneAlive(List<Long> pids) {
    assertThat(pids).isNotEmpty();
    for (long pid : pids) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
          .as("worker process %d must be gone", pid)
          .isFalse();
    }
  }
}
