package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.CommitOutcome;
import dev.fencing.Epoch;
import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.Renewal;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.fault.ForwardingQueue;
import dev.fencing.testkit.memory.InMemoryQueue;
import dev.fencing.testkit.memory.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The runtime's logic on the test kit's queue in memory, the fast variants of the tests that run it
 * on PostgreSQL ({@link HeartbeatTest}, {@link OutboxInTheRuntimeTest}, {@link
 * MaintenanceInTheRuntimeTest}, {@link FailuresTest}, {@link WakeUpsTest}): no database, and where
 * a lease must run out or a job grow old, the test moves the queue's clock instead of waiting. The
 * runtime still judges its own leases on its own clock, so moving the queue's clock makes a zombie
 * of it: its lease is gone from the store while it believes it has time left.
 */
class RuntimeOnAQueueInMemoryTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ManualClock clock = ManualClock.startingNow();
  private final InMemoryQueue queue = InMemoryQueue.builder().clock(clock).build();

  @Test
  void aLeaseTakenOverWhileItsHandlerRunsInterruptsTheHandlerAndNothingIsDeliveredOrCommitted()
      throws Exception {
    Object store = new Object();
    ForwardingQueue renewingInTurn =
        new ForwardingQueue(queue) {
          @Override
          public List<Renewal> renewAll(List<Lease> leases, Duration leaseLength) {
            synchronized (store) {
              return queue.renewAll(leases, leaseLength);
            }
          }
        };
    FencedReceiver receiver = Receivers.inMemory();
    long id = queue.enqueue("q", "{}");
    CountDownLatch running = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    Outcomes outcomes = new Outcomes();
    Job theft;
    try (QueueRuntime runtime =
        HeartbeatTest.runtime(renewingInTurn, receiver, outcomes, Duration.ofSeconds(30))
            .prefetch(0)
            .heartbeatInterval(Duration.ofMillis(100))
            .handler(
                (job, cancellation) -> {
                  running.countDown();
                  try {
                    Thread.sleep(10_000);
                  } catch (InterruptedException e) {
                    interrupted.set(cancellation.isCancelled());
                    throw e;
                  }
                  return "{\"late\": true}";
                })
            .start()) {
      assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
      // between two renewals: the lease runs out on the queue's clock and a thief claims the job
      synchronized (store) {
        clock.advance(Duration.ofSeconds(30));
        theft = queue.claim("q", "thief", Duration.ofMinutes(1)).orElseThrow();
      }

      WorkOutcome.FencedOff off = outcomes.await(WorkOutcome.FencedOff.class, 1, WAIT).getFirst();
      assertThat(off.stage()).isEqualTo(WorkOutcome.Stage.HEARTBEAT);
      assertThat(off.refusal())
          .isEqualTo(
              new FencedOutcome.Superseded(Long.toString(id), Epoch.FIRST, Epoch.of(2), "thief"));
    }
    assertThat(theft.epoch()).isEqualTo(Epoch.of(2));
    assertThat(interrupted).as("interrupted, and cancelled first").isTrue();
    assertThat(outcomes.all()).hasSize(1);
    assertThat(receiver.newest(Long.toString(id))).isEmpty();
    assertThat(queue.find(id).orElseThrow().result()).isNull();
  }

  /**
   * A release refused at shutdown is told as a release's refusal: the lease ran out on the queue's
   * clock before any renewal, the runtime, judging by its own clock, still held the job when its
   * drain timeout passed, and gave it back. It was filed as a refused renewal (stage HEARTBEAT).
   */
  @Test
  void aReleaseRefusedAtShutdownIsFencedOffAtTheReleaseStage() throws Exception {
    long id = queue.enqueue("q", "{}");
    CountDownLatch running = new CountDownLatch(1);
    Outcomes outcomes = new Outcomes();
    QueueRuntime runtime =
        HeartbeatTest.runtime(queue, Receivers.inMemory(), outcomes, Duration.ofMinutes(1))
            .prefetch(0)
            .heartbeatInterval(Duration.ofSeconds(50)) // no renewal within the test
            .handler(
                (job, cancellation) -> {
                  running.countDown();
                  Thread.sleep(60_000);
                  return "{}";
                })
            .start();
    assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
    clock.advance(Duration.ofMinutes(2));
    assertThat(runtime.shutdown(Duration.ofMillis(100))).isFalse();

    assertThat(outcomes.all()).singleElement().isInstanceOf(WorkOutcome.FencedOff.class);
    WorkOutcome.FencedOff off = (WorkOutcome.FencedOff) outcomes.all().getFirst();
    assertThat(off.stage()).isEqualTo(WorkOutcome.Stage.RELEASE);
    assertThat(off.refusal())
        .isEqualTo(
            new FencedOutcome.LeaseExpired(
                Long.toString(id), Epoch.FIRST, off.job().lease().expiresAt()));
  }

  @Test
  void aCommitRefusedInItsBatchWritesNoMessageWhileTheOthersWriteTheirs() throws Exception {
    List<Long> ids = queue.enqueueAll("q", List.of("{}", "{}", "{}", "{}"));
    List<Long> stolen = new ArrayList<>();
    ForwardingQueue stealing =
        new ForwardingQueue(queue) {
          @Override
          public List<CommitOutcome> completeAll(List<Completion> completions) {
            if (stolen.isEmpty() && completions.size() > 1) {
              // this one lease runs out on the queue's clock, the others keep theirs
              Lease lease = completions.getFirst().lease();
              queue.renew(lease, Duration.ofMillis(1));
              clock.advance(Duration.ofMillis(1));
              stolen.add(queue.claim("q", "thief", Duration.ofHours(1)).orElseThrow().id());
              assertThat(stolen).containsExactly(lease.jobId());
            }
            return queue.completeAll(completions);
          }
        };
    CountDownLatch allRunning = new CountDownLatch(4);
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        QueueRuntime.builder(stealing)
            .queue("q")
            .owner("w1")
            .concurrency(4)
            .leaseLength(Duration.ofMinutes(1))
            .maxCommitDelay(Duration.ofMillis(200))
            .outboxHandler(
                (job, cancellation) -> {
                  allRunning.countDown();
                  allRunning.await(10, TimeUnit.SECONDS);
                  return HandlerResult.of("{}", new OutboxMessage("mail", "job-" + job.id(), "{}"));
                })
            .onOutcome(outcomes)
            .start()) {
      outcomes.await(WorkOutcome.class, 4, WAIT);
    }
    assertThat(outcomes.of(WorkOutcome.FencedOff.class))
        .singleElement()
        .satisfies(f -> assertThat(f.job().id()).isEqualTo(stolen.getFirst()));
    List<FencedOutbox.Envelope> sent = new ArrayList<>();
    queue
        .outbox()
        .relay(
            "mail",
            e -> {
              sent.add(e);
              return new FencedOutcome.Accepted(e.key(), e.epoch(), false);
            },
            100);
    assertThat(sent)
        .extracting(FencedOutbox.Envelope::jobId)
        .containsExactlyInAnyOrderElementsOf(
            ids.stream().filter(id -> !id.equals(stolen.getFirst())).toList());
  }

  @Test
  void aBacklogOfJobsAWeekOldGoesInBatchesWhileNewWorkIsDoneAndKept() throws Exception {
    queue.enqueueAll("q", Collections.nCopies(250, "{}"));
    Outcomes first = new Outcomes();
    try (QueueRuntime runtime = runtime(first).start()) {
      first.await(WorkOutcome.Completed.class, 250, WAIT);
    }
    clock.advance(Duration.ofDays(8));

    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        runtime(outcomes)
            .maintenance(queue.maintenance(Duration.ofDays(7), 100), Duration.ofMinutes(1))
            .start()) {
      List<Long> fresh = queue.enqueueAll("q", Collections.nCopies(20, "{}"));
      outcomes.await(WorkOutcome.Completed.class, 20, WAIT);
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (runtime.maintenanceStats().jobsRemoved() < 250 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(runtime.maintenanceStats().jobsRemoved()).isEqualTo(250);
      assertThat(runtime.maintenanceStats().rounds()).as("100 + 100 + 50").isEqualTo(3);
      for (long id : fresh) {
        assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
      }
    }
  }

  @Test
  void twoRuntimesWithTheSameOwnerNameFinishEveryJobOnce() throws Exception {
    List<Long> ids = queue.enqueueAll("q", IntStream.range(0, 400).mapToObj(i -> "{}").toList());
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime a = runtime(outcomes).batchSize(10).start();
        QueueRuntime b = runtime(outcomes).batchSize(10).start()) {
      outcomes.await(WorkOutcome.Completed.class, 400, WAIT);
    }
    assertThat(outcomes.all()).hasSize(400).allMatch(WorkOutcome.Completed.class::isInstance);
    assertThat(outcomes.all().stream().map(o -> o.job().id()).distinct()).hasSize(400);
    for (long id : ids) {
      assertThat(queue.find(id).orElseThrow().epoch()).isEqualTo(1);
    }
  }

  @Test
  void anIdleRuntimeWakesOnAnEnqueueLongBeforeItsFallbackPoll() throws Exception {
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime = runtime(outcomes).fallbackPoll(Duration.ofMinutes(1)).start()) {
      Thread.sleep(300); // claimed nothing, waits its minute
      long id = queue.enqueue("q", "{}");

      var done = outcomes.await(WorkOutcome.Completed.class, 1, WAIT);
      assertThat(done.getFirst().job().id()).isEqualTo(id);
    }
  }

  private QueueRuntime.Builder runtime(Outcomes outcomes) {
    return QueueRuntime.builder(queue, Receivers.inMemory())
        .queue("q")
        .owner("w1")
        .onOutcome(outcomes)
        .handler((job, cancellation) -> "{\"by\": \"" + job.id() + "\"}");
  }
}
