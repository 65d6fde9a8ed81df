package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.QueueStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Closing the application context while jobs run: the jobs whose handler finished are committed,
 * those not started and those cut at the drain timeout are released, none stays claimed, and the
 * next instance runs exactly the rest.
 */
@Timeout(120)
class ShutdownLosesNothingTest {

  @Test
  void finishedJobsAreCommittedTheRestReleasedAndTheNextInstanceRunsExactlyTheRest() {
    String schema = Apps.db().freshSchema("shutdown");
    FencedQueue queue = fencing(schema).queue();
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      ids.add(queue.enqueue("slow", "{}"));
    }
    SlowApp.Slow first;
    FencedWorkers runtime;
    try (ConfigurableApplicationContext app =
        Apps.start(
            SlowApp.class,
            schema,
            "test.pause=400ms",
            "fencing.queues.slow.concurrency=2",
            "fencing.queues.slow.prefetch=4",
            "fencing.drain-timeout=10s")) {
      first = app.getBean(SlowApp.Slow.class);
      runtime = app.getBean(ManagedWorkers.class).running().orElseThrow();
      Apps.await("two jobs started", Duration.ofSeconds(10), () -> first.started.size() >= 2);
    }

    QueueStats stats = runtime.stats("slow");
    assertThat(first.finished).isNotEmpty().isEqualTo(first.started);
    assertThat(stats.completed()).isEqualTo(first.finished.size());
    assertThat(stats.released()).as("prefetched jobs given back").isPositive();
    assertThat(stats.fencedOff() + stats.abandoned() + stats.failed() + stats.inFlight()).isZero();
    List<JobSnapshot> after = Apps.jobs(queue, ids);
    assertThat(after).noneMatch(j -> j.state() == JobState.RUNNING);
    assertThat(after.stream().filter(j -> j.state() == JobState.COMPLETED).map(JobSnapshot::id))
        .containsExactlyInAnyOrderElementsOf(first.finished);

    try (ConfigurableApplicationContext app = Apps.start(SlowApp.class, schema, "test.pause=0s")) {
      SlowApp.Slow second = app.getBean(SlowApp.Slow.class);
      Apps.await(
          "every job completed",
          Duration.ofSeconds(20),
          () -> Apps.jobs(queue, ids).stream().allMatch(j -> j.state() == JobState.COMPLETED));
      assertThat(second.finished).doesNotContainAnyElementsOf(first.finished);
      assertThat(second.finished.size() + first.finished.size()).isEqualTo(ids.size());
    }
  }

  @Test
  void aHandlerStillRunningAtTheDrainTimeoutIsCancelledAndItsJobReleased() {
    String schema = Apps.db().freshSchema("shutdown");
    FencedQueue queue = fencing(schema).queue();
    long id = queue.enqueue("slow", "{}");
    SlowApp.Slow slow;
    long closing;
    try (ConfigurableApplicationContext app =
        Apps.start(SlowApp.class, schema, "test.pause=60s", "fencing.drain-timeout=300ms")) {
      slow = app.getBean(SlowApp.Slow.class);
      Apps.await("the job started", Duration.ofSeconds(10), () -> slow.started.contains(id));
      closing = System.nanoTime();
    }
    assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(5));
    assertThat(slow.finished).isEmpty();
    JobSnapshot job = queue.find(id).orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.PENDING);
    assertThat(job.attempts()).as("a release counts no attempt").isZero();
  }

  private static PostgresFencing fencing(String schema) {
    return PostgresFencing.builder(Apps.db().dataSource()).schema(schema).build();
  }
}
