package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.CommitOutcome;
import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.admin.OutboxEntry;
import dev.fencing.postgres.admin.PostgresAdmin;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.fault.ForwardingQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The runtime writes effects: a handler's outbox messages are committed in the transaction of its
 * compare-and-set (batched commits included), a refused commit writes none, a message the store
 * refuses takes its result down with it, and the relay runs in the runtime and stops after the last
 * commits.
 */
@FencingDatabase
class OutboxInTheRuntimeTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private static HandlerResult email(Job job) {
    return HandlerResult.of(
        "{\"sent\": true}",
        new OutboxMessage("mail", "job-" + job.id(), "{\"job\": " + job.id() + "}"));
  }

  @Test
  void everyMessageIsCommittedWithItsResultInBatchesAndRelayedByTheRuntime(TestSchema schema)
      throws Exception {
    FencedQueue queue = queue(schema);
    FencedOutbox outbox = outbox(schema);
    List<Long> ids = queue.enqueueAll("q", IntStream.range(0, 40).mapToObj(i -> "{}").toList());
    List<FencedOutbox.Envelope> sent = new CopyOnWriteArrayList<>();
    Outcomes outcomes = new Outcomes();
    QueueStats stats;
    try (QueueRuntime runtime =
        QueueRuntime.builder(queue)
            .queue("q")
            .owner("w1")
            .concurrency(8)
            .maxCommitDelay(Duration.ofMillis(20))
            .outboxHandler((job, cancellation) -> email(job))
            .relay(outbox, "mail", accepting(sent))
            .relayEvery(Duration.ofMillis(20))
            .onOutcome(outcomes)
            .start()) {
      outcomes.await(WorkOutcome.Completed.class, 40, WAIT);
      awaitSize(sent, 40);
      stats = runtime.stats();
    }
    assertThat(outcomes.of(WorkOutcome.Completed.class))
        .hasSize(40)
        .allMatch(c -> c.delivery() == null, "no receiver, no delivery");
    assertThat(stats.commitStatements()).as("messages ride in batched commits").isLessThan(40);
    assertThat(sent)
        .extracting(e -> e.jobId() + "@" + e.epoch().value() + " " + e.key() + " " + e.payload())
        .containsExactlyInAnyOrderElementsOf(
            ids.stream().map(id -> id + "@1 job-" + id + " {\"job\": " + id + "}").toList());
  }

  @Test
  void aRefusedCommitWritesNoMessageWhileTheOthersInItsBatchWriteTheirs(TestSchema schema)
      throws Exception {
    FencedQueue real = queue(schema);
    List<Long> ids = real.enqueueAll("q", List.of("{}", "{}", "{}", "{}"));
    StealsOneJobInTheFirstBatch queue = new StealsOneJobInTheFirstBatch(real);
    CountDownLatch allRunning = new CountDownLatch(4);
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        QueueRuntime.builder(queue, Receivers.inMemory())
            .queue("q")
            .owner("w1")
            .concurrency(4)
            .maxCommitDelay(Duration.ofMillis(200))
            .outboxHandler(
                (job, cancellation) -> {
                  allRunning.countDown();
                  allRunning.await(10, TimeUnit.SECONDS);
                  return email(job);
                })
            .onOutcome(outcomes)
            .start()) {
      assertThat(allRunning.await(10, TimeUnit.SECONDS)).isTrue();
      awaitEnded(outcomes, 4);
    }
    long stolen = queue.stolen;
    assertThat(queue.batchSize).as("the steal happened in a batch").isGreaterThan(1);
    assertThat(outcomes.of(WorkOutcome.FencedOff.class))
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.job().id()).isEqualTo(stolen);
              assertThat(f.stage()).isEqualTo(WorkOutcome.Stage.COMMIT);
              assertThat(f.refusal()).isInstanceOf(FencedOutcome.Superseded.class);
            });
    assertThat(outcomes.of(WorkOutcome.Completed.class)).hasSize(3);
    List<String> expected = new ArrayList<>();
    for (long id : ids) {
      if (id != stolen) {
        expected.add(id + "@1");
      }
    }
    assertThat(written(schema, ids)).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void aMessageTheStoreRefusesFailsItsJobAndNeitherItsResultNorAnyMessageIsWritten(
      TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    List<Long> ids = queue.enqueueAll("q", List.of("{\"bad\": true}", "{}"));
    Outcomes outcomes =
        runTwoTogether(
            queue,
            job ->
                HandlerResult.of(
                    "{\"sent\": true}",
                    new OutboxMessage("mail", "a", "{}"),
                    new OutboxMessage(
                        "mail", "b", job.payload().contains("bad") ? "not json" : "{}")));
    assertThat(outcomes.of(WorkOutcome.Failed.class))
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.job().id()).isEqualTo(ids.get(0));
              assertThat(f.error())
                  .isInstanceOf(IllegalArgumentException.class)
                  .hasMessageContaining("messages[1].payload");
            });
    var bad = queue.find(ids.get(0)).orElseThrow();
    assertThat(bad.state()).isEqualTo(JobState.PENDING);
    assertThat(bad.result()).as("the result fell with its message").isNull();
    assertThat(queue.find(ids.get(1)).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    assertThat(written(schema, ids)).containsExactly(ids.get(1) + "@1", ids.get(1) + "@1");
  }

  @Test
  void anOutboxHandlerThatReturnsNothingFailsItsJobByName(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    List<Long> ids = queue.enqueueAll("q", List.of("{\"nothing\": true}", "{}"));
    Outcomes outcomes =
        runTwoTogether(queue, job -> job.payload().contains("nothing") ? null : email(job));
    assertThat(outcomes.of(WorkOutcome.Failed.class))
        .singleElement()
        .satisfies(f -> assertThat(f.job().id()).isEqualTo(ids.get(0)));
    assertThat(queue.find(ids.get(0)).orElseThrow().lastError())
        .contains("the handler must return a result, but returned null");
    assertThat(written(schema, ids)).containsExactly(ids.get(1) + "@1");
  }

  @Test
  void aQueueWithoutAnOutboxFailsOnlyTheJobsThatCarryMessages(TestSchema schema) throws Exception {
    FencedQueue real = queue(schema);
    List<Long> ids = real.enqueueAll("q", List.of("{\"mail\": true}", "{}"));
    Outcomes outcomes =
        runTwoTogether(
            new ForwardingQueue(real),
            job -> job.payload().contains("mail") ? email(job) : HandlerResult.of("{}"));
    assertThat(outcomes.of(WorkOutcome.Failed.class))
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.job().id()).isEqualTo(ids.get(0));
              assertThat(f.error()).isInstanceOf(UnsupportedOperationException.class);
            });
    assertThat(outcomes.of(WorkOutcome.Completed.class))
        .singleElement()
        .satisfies(c -> assertThat(c.job().id()).isEqualTo(ids.get(1)));
    assertThat(written(schema, ids)).isEmpty();
  }

  @Test
  void theRelayStopsAfterTheLastCommitsAndSendsWhatTheyWrote(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    List<Long> ids = queue.enqueueAll("q", List.of("{}", "{}", "{}"));
    List<FencedOutbox.Envelope> sent = new CopyOnWriteArrayList<>();
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(3);
    Outcomes outcomes = new Outcomes();
    QueueRuntime runtime =
        QueueRuntime.builder(queue)
            .queue("q")
            .owner("w1")
            .concurrency(3)
            .drainTimeout(Duration.ofSeconds(20))
            .outboxHandler(
                (job, cancellation) -> {
                  started.countDown();
                  release.await(20, TimeUnit.SECONDS);
                  return email(job);
                })
            // a round at start, then none for an hour: only the last round can send these
            .relay(outbox(schema), "mail", accepting(sent))
            .relayEvery(Duration.ofHours(1))
            .onOutcome(outcomes)
            .start();
    long deadline = System.nanoTime() + WAIT.toNanos();
    // 3 handlers started, not only 3 claims: a claim still waiting for its handler thread when the
    // shutdown begins is released unstarted (this test once saw 2 completions of 3 so)
    while (runtime.relayStats().rounds() < 1 || started.getCount() > 0) {
      assertThat(System.nanoTime() - deadline)
          .as("the first relay round and 3 handlers started")
          .isNegative();
      Thread.sleep(10);
    }
    Thread closer = Thread.ofPlatform().start(() -> runtime.shutdown(Duration.ofSeconds(20)));
    release.countDown();
    closer.join(WAIT);
    assertThat(closer.isAlive()).isFalse();
    assertThat(outcomes.of(WorkOutcome.Completed.class)).hasSize(3);
    assertThat(sent)
        .extracting(FencedOutbox.Envelope::jobId)
        .containsExactlyInAnyOrderElementsOf(ids);
    assertThat(runtime.relayStats())
        .as("the round at start and the last")
        .isEqualTo(new RelayStats(2, 3, 0, 0));
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().startsWith("fencing-relay-w1"));
  }

  @Test
  void aFailedRelayIsTriedAgainAndEachDestinationGoesWhereItWasSent(TestSchema schema)
      throws Exception {
    FencedQueue queue = queue(schema);
    long id = queue.enqueue("q", "{}");
    FencedReceiver ledger = Receivers.inMemory();
    List<FencedOutbox.Envelope> mails = new CopyOnWriteArrayList<>();
    AtomicBoolean failedOnce = new AtomicBoolean();
    FencedOutbox.Sender mailer =
        envelope -> {
          if (failedOnce.compareAndSet(false, true)) {
            throw new IllegalStateException("test: the mail server is down");
          }
          return accepting(mails).send(envelope);
        };
    QueueRuntime runtime =
        QueueRuntime.builder(queue)
            .queue("q")
            .owner("w1")
            .outboxHandler(
                (job, cancellation) ->
                    HandlerResult.of(
                        "{}",
                        new OutboxMessage("mail", "ada", "{}"),
                        new OutboxMessage("ledger", "acc-1", "{\"debit\": 1}")))
            .relay(outbox(schema), "mail", mailer)
            .relay(outbox(schema), "ledger", ledger)
            .relayEvery(Duration.ofMillis(20))
            .start();
    try (runtime) {
      awaitSize(mails, 1);
    }
    assertThat(mails).singleElement().satisfies(m -> assertThat(m.jobId()).isEqualTo(id));
    assertThat(ledger.newest("acc-1").orElseThrow().epoch().value()).isEqualTo(1);
    assertThat(runtime.relayStats().failures()).isEqualTo(1);
    assertThat(runtime.relayStats().sent()).isEqualTo(2);
  }

  /**
   * Runs the queue's two jobs at once, so that their results share a commit, and returns their
   * outcomes; a failed job waits an hour before it is claimable again.
   */
  private static Outcomes runTwoTogether(FencedQueue queue, Function<Job, HandlerResult> work)
      throws InterruptedException {
    CountDownLatch bothRunning = new CountDownLatch(2);
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        QueueRuntime.builder(queue)
            .queue("q")
            .owner("w1")
            .concurrency(2)
            .maxCommitDelay(Duration.ofMillis(200))
            .retryDelay(Duration.ofHours(1))
            .outboxHandler(
                (job, cancellation) -> {
                  bothRunning.countDown();
                  bothRunning.await(10, TimeUnit.SECONDS);
                  return work.apply(job);
                })
            .onOutcome(outcomes)
            .start()) {
      awaitEnded(outcomes, 2);
    }
    return outcomes;
  }

  private static FencedOutbox.Sender accepting(List<FencedOutbox.Envelope> sent) {
    return envelope -> {
      sent.add(envelope);
      return new FencedOutcome.Accepted(envelope.key(), envelope.epoch(), false);
    };
  }

  private static FencedQueue queue(TestSchema schema) {
    return PostgresFencing.builder(schema.pooledDataSource(8))
        .schema(schema.name())
        .build()
        .queue();
  }

  private static FencedOutbox outbox(TestSchema schema) {
    return PostgresFencing.builder(schema.pooledDataSource(2))
        .schema(schema.name())
        .build()
        .outbox();
  }

  /**
   * Every outbox message the jobs' commits wrote, sent or not, as {@code job@epoch}, read through
   * the admin API.
   */
  private static List<String> written(TestSchema schema, List<Long> ids) {
    PostgresAdmin admin =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build().admin();
    List<String> rows = new ArrayList<>();
    for (long id : ids) {
      for (OutboxEntry message : admin.job(id).orElseThrow().messages()) {
        rows.add(id + "@" + message.epoch());
      }
    }
    return rows;
  }

  private static void awaitEnded(Outcomes outcomes, int count) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (outcomes.all().size() < count) {
      assertThat(System.nanoTime() - deadline)
          .as("outcomes so far: %s", outcomes.all())
          .isNegative();
      Thread.sleep(10);
    }
  }

  private static void awaitSize(List<?> list, int size) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (list.size() < size) {
      assertThat(System.nanoTime() - deadline)
          .as("%s of %s so far", list.size(), size)
          .isNegative();
      Thread.sleep(10);
    }
  }

  /**
   * The real queue, except that in the first commit of more than one result, the first result's job
   * is taken over just before the statement: its lease ends on the database clock (renewed through
   * the real queue for a millisecond, which the runtime does not see) and another worker claims it
   * at the next epoch, so that the compare-and-set refuses it while the runtime still holds the
   * lease by its own clock. Jobs are claimed one per statement, so that each has a lease of its own
   * on either engine (the append-only engine keeps one lease per claimed batch, and a job claimed
   * with others would take them along).
   */
  private static final class StealsOneJobInTheFirstBatch extends ForwardingQueue {
    private final FencedQueue real;
    volatile long stolen = -1;
    volatile int batchSize;

    StealsOneJobInTheFirstBatch(FencedQueue real) {
      super(real);
      this.real = real;
    }

    @Override
    public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
      List<Job> jobs = new ArrayList<>();
      while (jobs.size() < batchSize) {
        List<Job> one = real.claimBatch(queue, owner, leaseLength, 1);
        if (one.isEmpty()) {
          break;
        }
        jobs.addAll(one);
      }
      return jobs;
    }

    @Override
    public List<CommitOutcome> completeAll(List<Completion> completions) {
      if (stolen < 0 && completions.size() > 1) {
        Lease lease = completions.getFirst().lease();
        assertThat(takeOver(lease).id()).isEqualTo(lease.jobId());
        stolen = lease.jobId();
        batchSize = completions.size();
      }
      return real.completeAll(completions);
    }

    /** Ends {@code lease} on the database clock and claims its job as another worker. */
    private Job takeOver(Lease lease) {
      real.renew(lease, Duration.ofMillis(1));
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (true) {
        Optional<Job> job = real.claim("q", "thief", Duration.ofMinutes(5));
        if (job.isPresent()) {
          return job.get();
        }
        assertThat(System.nanoTime() - deadline).as("the lease never ran out").isNegative();
        try {
          Thread.sleep(2);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
  }
}
