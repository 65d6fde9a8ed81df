package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.CancelResult;
import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.process.JavaProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A running job cancelled while its holder is frozen with {@code SIGSTOP} is never committed and
 * never accepted by a receiver after the thaw (issue 36). A worker process ({@link
 * CancelWorkerMain}) claims the job under a lease far longer than the test, so that the cancel, not
 * an expiry, is what ends it; the test freezes the worker inside its handler, cancels the job,
 * raises the receiver's key to the fence epoch the cancel returned, lets the handler finish, and
 * thaws the worker. Its handler ignores the interrupt and returns a result; the runtime must get
 * that result refused (at the receiver, or at the queue if its heartbeat came first), and the
 * holder's lease is refused {@code Cancelled} by the queue. A second job afterwards completes, so
 * the worker was alive to try.
 */
@FencingDatabase
class FrozenHolderCancelTest {

  private static final Duration BOUND = Duration.ofSeconds(60);

  @ParameterizedTest
  @ValueSource(strings = {"append", "update"})
  void aCancelledJobsFrozenHolderIsRefusedEverywhereAfterTheThaw(String engine, TestSchema schema)
      throws Exception {
    PostgresFencing fencing =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .engine(
                engine.equals("update")
                    ? PostgresFencing.Engine.UPDATE_IN_PLACE
                    : PostgresFencing.Engine.APPEND_ONLY)
            .build();
    FencedQueue queue = fencing.queue();
    FencedReceiver receiver = fencing.receiver(CancelWorkerMain.RECEIVER);
    Path go = Files.createTempDirectory("cancel-go");
    long job = queue.enqueue(CancelWorkerMain.QUEUE, "{\"n\": 1}");
    try (JavaProcess worker =
        JavaProcess.start(
            "cancel-worker-" + engine,
            CancelWorkerMain.class,
            List.of(
                schema.database().jdbcUrl(),
                schema.database().user(),
                schema.database().password(),
                schema.name(),
                engine,
                "60000",
                "200",
                go.toString()))) {
      worker.await(0, "ready"::equals, BOUND);
      int handling = worker.await(0, l -> l.startsWith("handling " + job + " "), BOUND);
      Epoch held = Epoch.of(Long.parseLong(worker.lines().get(handling).split(" ")[2]));

      worker.freeze();
      CancelResult result = queue.cancel(job, "the customer withdrew it");
      assertThat(result).isInstanceOf(CancelResult.Cancelled.class);
      CancelResult.Cancelled cancelled = (CancelResult.Cancelled) result;
      assertThat(cancelled.was()).isEqualTo(JobState.RUNNING);
      assertThat(cancelled.fence()).isGreaterThan(held);
      assertThat(receiver.fence(Long.toString(job), cancelled.fence()).isAccepted()).isTrue();
      Files.createFile(go.resolve(Long.toString(job)));
      worker.thaw();

      int outcome = worker.await(handling, l -> l.startsWith("outcome "), BOUND);
      String line = worker.lines().get(outcome);
      // refused at the receiver (raised to the fence) or, if the thawed heartbeat came first, by
      // the
      // queue: either way nothing of the holder's counted
      assertThat(line)
          .isIn(
              "outcome fenced " + job + " DELIVER Superseded",
              "outcome fenced " + job + " HEARTBEAT Cancelled",
              "outcome fenced " + job + " COMMIT Cancelled");
      // the holder's lease, written again by hand: its commit is refused Cancelled, naming the
      // reason
      Lease holders = new Lease(job, "frozen", held, Instant.now().plusSeconds(60));
      assertThatThrownBy(() -> queue.complete(holders, "{\"late\": true}"))
          .isInstanceOfSatisfying(
              FencedOffException.class,
              e ->
                  assertThat(e.refusal())
                      .isEqualTo(
                          new FencedOutcome.Cancelled(
                              Long.toString(job), held, "the customer withdrew it")));

      JobSnapshot snapshot = queue.find(job).orElseThrow();
      assertThat(snapshot.state()).isEqualTo(JobState.FAILED);
      assertThat(snapshot.lastError()).contains("cancelled").contains("the customer withdrew it");
      FencedReceiver.Receipt newest = receiver.newest(Long.toString(job)).orElseThrow();
      assertThat(newest.epoch()).isEqualTo(cancelled.fence());
      assertThat(newest.payload()).isEqualTo("null");
      // a late delivery of the frozen holder's epoch is refused by the receiver on its own
      assertThat(receiver.deliver(Long.toString(job), held, "{\"late\": true}"))
          .isInstanceOf(FencedOutcome.Superseded.class);

      long next = queue.enqueue(CancelWorkerMain.QUEUE, "{\"n\": 2}");
      Files.createFile(go.resolve(Long.toString(next)));
      int done = worker.await(outcome, l -> l.startsWith("outcome completed " + next), BOUND);
      assertThat(queue.find(next).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
      assertThat(queue.find(job).orElseThrow().state()).isEqualTo(JobState.FAILED);
      worker.send("stop");
      worker.await(done, "stopped"::equals, BOUND);
    }
  }
}
