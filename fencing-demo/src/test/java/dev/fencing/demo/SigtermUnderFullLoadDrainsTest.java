package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.QueueDepth;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.process.JavaProcess;
import dev.fencing.testkit.process.Signals;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A worker JVM told to end with {@code SIGTERM} while all its 128 handler threads are busy and its
 * prefetch is full drains (issue 51): it logs the drain, exits within its drain timeout, and leaves
 * no job of the queue running, each job in flight committed or released. In the public job-queue
 * harness, such a worker exited 0.57 s after {@code SIGTERM} with no drain line and left 183 jobs
 * running until their leases ran out: nothing drained on {@code SIGTERM}, since the JVM runs no
 * {@code finally} and no {@code close()} of a thread still waiting when a signal ends it, only its
 * shutdown hooks. The worker ({@link DrainWorkerMain}) is the README's Sample with {@code
 * drainOnShutdown(fencing, dataSource)}.
 */
@FencingDatabase
class SigtermUnderFullLoadDrainsTest {

  private static final String QUEUE = "drain";
  private static final int CONCURRENCY = 128;
  private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration BOUND = Duration.ofSeconds(120);
  private static final String LOGGER = "INFO dev.fencing.runtime.FencedWorkers - ";

  @Test
  void aSigtermWithEveryHandlerBusyDrainsAndLeavesNoJobRunning(TestSchema schema) {
    FencedQueue queue = queue(schema);
    // the first child of a class path writes its class archive on the way out, which would count
    // in the time to exit: one on an empty queue pays for that first
    JavaProcess.warmUp(
        "drain-warm-up",
        List.of(),
        DrainWorkerMain.class,
        arguments(schema, "warm_up"),
        child -> child.await(0, "ready"::equals, BOUND));
    queue.enqueueAll(QUEUE, Collections.nCopies(2_000, "{}"));
    try (JavaProcess worker =
        JavaProcess.start("drain-worker", DrainWorkerMain.class, arguments(schema, QUEUE))) {
      worker.await(0, "saturated"::equals, BOUND);
      QueueDepth before = queue.depth(QUEUE);
      long sent = System.nanoTime();
      Signals.send(worker.pid(), "TERM", worker.name());
      int exit = worker.awaitExit(BOUND);
      Duration took = Duration.ofNanos(System.nanoTime() - sent);
      QueueDepth after = queue.depth(QUEUE);
      String stderr = worker.stderr();
      System.out.printf(
          "before SIGTERM %s; exit %d after %d ms; after %s; its lines:%n%s%n",
          before,
          exit,
          took.toMillis(),
          after,
          stderr.lines().filter(l -> l.contains("fencing: ")).toList());

      assertThat(before.running()).isGreaterThanOrEqualTo(CONCURRENCY);
      assertThat(exit).as("exit code, stderr: %s", stderr).isEqualTo(143);
      assertThat(stderr)
          .contains(LOGGER + "fencing: owner drain-worker: the JVM is shutting down; draining ")
          .contains(LOGGER + "fencing: owner drain-worker drained [drain] in ")
          .doesNotContain("WARN");
      assertThat(took).isLessThan(DRAIN_TIMEOUT);
      assertThat(after.running()).as("jobs left running after the exit").isZero();
      assertThat(after.failed()).isZero();
    }
  }

  @Test
  void aWorkerClosedInOrderTakesItsHookOff(TestSchema schema) {
    queue(schema);
    try (JavaProcess worker =
        JavaProcess.start("closed-worker", DrainWorkerMain.class, arguments(schema, "closed"))) {
      worker.await(0, "ready"::equals, BOUND);
      worker.send(""); // Enter: the main thread closes the door, the handle and the pool
      assertThat(worker.awaitExit(BOUND)).as("exit code, stderr: %s", worker.stderr()).isZero();
      assertThat(worker.stderr()).doesNotContain("draining").doesNotContain("WARN");
    }
  }

  private static FencedQueue queue(TestSchema schema) {
    return PostgresFencing.builder(schema.dataSource())
        .schema(schema.name())
        .engine(PostgresFencing.Engine.UPDATE_IN_PLACE)
        .build()
        .queue();
  }

  private static List<String> arguments(TestSchema schema, String queue) {
    return List.of(
        schema.database().jdbcUrl(),
        schema.database().user(),
        schema.database().password(),
        schema.name(),
        queue,
        Integer.toString(CONCURRENCY),
        "300",
        Long.toString(DRAIN_TIMEOUT.toMillis()),
        "hook");
  }
}
