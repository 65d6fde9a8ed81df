package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.OutboxMessage;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.HandlerResult;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.process.JavaProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The seed's email, which no receiver can take back, sent through the outbox by {@link
 * FencedWorkers}: a worker JVM ({@link RuntimeEmailWorkerMain}) claims the job, its handler returns
 * the email as an outbox message, and it is frozen with {@code SIGSTOP} past its lease; a healthy
 * runtime reclaims the job at epoch 2, commits its own email with its result and relays it; then
 * the zombie is thawed with {@code SIGCONT}. Exactly one email is relayed, epoch 2's, and the
 * zombie's never exists.
 *
 * <p>Frozen inside its handler, the zombie's runtime sees after the thaw that the lease ran out by
 * its own clock and drops the result, so its commit is never sent. Frozen later, after that last
 * check and before its compare-and-set, only the database stands in the way: the commit is refused
 * and, being one transaction with the outbox write, writes no message.
 */
@FencingDatabase
class ZombieEmailThroughTheOutboxTest {

  private static final String QUEUE = "emails";
  private static final Duration WAIT = Duration.ofSeconds(60);

  /**
   * Long enough that a loaded machine still starts the handler inside it (at 1.5 s, a claim once
   * waited so long for its handler that the runtime released the job unstarted).
   */
  private static final long LEASE_MS = 3_000;

  @Test
  void frozenInsideItsHandlerTheZombieDropsItsEmailAndOnlyTheNewOwnersIsSent(TestSchema schema)
      throws Exception {
    Run run = run(schema, "handler");
    assertThat(run.zombieLines()).noneMatch(l -> l.startsWith("committing"));
    assertThat(run.zombieOutcome().type()).isIn("Abandoned", "FencedOff");
    assertThat(run.zombieOutcome().stage()).isIn("-", "HEARTBEAT");
  }

  @Test
  void frozenBeforeItsCompareAndSetTheZombiesCommitIsRefusedAndWritesNoEmail(TestSchema schema)
      throws Exception {
    Run run = run(schema, "commit");
    assertThat(run.zombieLines()).anyMatch(l -> l.equals("committing [" + run.job() + "]"));
    assertThat(run.zombieLines()).anyMatch(l -> l.startsWith("committed [Superseded["));
    assertThat(run.zombieOutcome().type()).isEqualTo("FencedOff");
    assertThat(run.zombieOutcome().stage()).isEqualTo("COMMIT");
    assertThat(run.zombieOutcome().refusal()).isEqualTo("Superseded:2");
  }

  private record Run(long job, List<String> zombieLines, OutcomeLine zombieOutcome) {}

  /**
   * Freezes the zombie where {@code freezeAt} says, lets the healthy runtime complete and relay,
   * thaws the zombie, and checks what every scenario must end in: one email, epoch 2's.
   */
  private Run run(TestSchema schema, String freezeAt) throws Exception {
    FencedQueue queue =
        PostgresFencing.builder(schema.pooledDataSource(6)).schema(schema.name()).build().queue();
    FencedOutbox outbox =
        PostgresFencing.builder(schema.pooledDataSource(2)).schema(schema.name()).build().outbox();
    List<FencedOutbox.Envelope> sent = new CopyOnWriteArrayList<>();
    long id;
    List<String> lines;
    OutcomeLine zombieOutcome;
    try (JavaProcess zombie = start(schema, freezeAt)) {
      zombie.await(0, "ready"::equals, WAIT);
      // enqueued once the zombie's runtime runs, so its claim is not its JVM's first
      id = queue.enqueue(QUEUE, "{\"to\": \"ada@example.com\"}");
      String freezeLine = freezeAt.equals("handler") ? "handling " + id + " 1" : "committing";
      zombie.await(0, l -> l.startsWith(freezeLine), WAIT);
      zombie.freeze();
      try (FencedWorkers healthy =
          FencedWorkers.builder(queue)
              .owner("new-owner")
              .outboxQueue(
                  QUEUE,
                  (job, cancellation) ->
                      HandlerResult.of(
                          "{\"by\": \"new-owner\"}",
                          new OutboxMessage(
                              "mail",
                              "ada@example.com",
                              "{\"to\": \"ada@example.com\", \"by\": \"new-owner\"}")),
                  q -> q.fallbackPoll(Duration.ofMillis(100)))
              .relay(outbox, "mail", accepting(sent))
              .relayEvery(Duration.ofMillis(50))
              .start()) {
        awaitOne(sent);
        zombie.send("go");
        zombie.thaw();
        int outcome = zombie.await(0, l -> l.startsWith("outcome "), WAIT);
        zombieOutcome =
            OutcomeLine.parse(zombie.lines().get(outcome).substring("outcome ".length()))
                .orElseThrow();
        zombie.send("stop");
        zombie.await(0, "stopped"::equals, WAIT);
        lines = zombie.lines();
      }
    }
    assertThat(zombieOutcome.job()).isEqualTo(id);
    assertThat(zombieOutcome.epoch()).isEqualTo(1);
    assertThat(sent).as("one email is relayed, the new owner's").hasSize(1);
    FencedOutbox.Envelope email = sent.getFirst();
    assertThat(email.jobId()).isEqualTo(id);
    assertThat(email.epoch().value()).isEqualTo(2);
    assertThat(email.payload()).contains("new-owner");
    assertThat(OutboxRows.of(schema))
        .as("the zombie's email never existed")
        .containsExactly(id + "@2");
    assertThat(queue.find(id).orElseThrow().result()).contains("new-owner");
    return new Run(id, lines, zombieOutcome);
  }

  private static JavaProcess start(TestSchema schema, String freezeAt) {
    PostgresFixture.Database db = schema.database();
    return JavaProcess.start(
        "zombie",
        List.of(),
        RuntimeEmailWorkerMain.class,
        List.of(
            db.jdbcUrl(),
            db.user(),
            db.password(),
            schema.name(),
            QUEUE,
            "zombie",
            Long.toString(LEASE_MS),
            freezeAt));
  }

  private static FencedOutbox.Sender accepting(List<FencedOutbox.Envelope> sent) {
    return envelope -> {
      sent.add(envelope);
      return new FencedOutcome.Accepted(envelope.key(), envelope.epoch(), false);
    };
  }

  private static void awaitOne(List<FencedOutbox.Envelope> sent) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (sent.isEmpty()) {
      assertThat(System.nanoTime() - deadline).as("the new owner's email was relayed").isNegative();
      Thread.sleep(10);
    }
  }
}
