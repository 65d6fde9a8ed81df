package dev.fencing.demo;

import dev.fencing.CommitOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.OutboxMessage;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.HandlerResult;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.fault.ForwardingQueue;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;

/**
 * A worker JVM of {@link ZombieEmailThroughTheOutboxTest}: a {@link FencedWorkers} without a
 * receiver whose handler returns the job's email as an outbox message, committed with its result.
 * It waits at one point for the line {@code go} on its input, so that the test can freeze it there
 * with {@code SIGSTOP}: inside the handler ({@code handler}), or between the runtime's last local
 * check of the lease and its compare-and-set ({@code commit}: the queue's {@code completeAll} is
 * entered, the statement not yet sent).
 *
 * <p>Prints {@code handling <job> <epoch>} when the handler starts, {@code committing <jobs>} when
 * a commit is about to be sent, {@code committed <outcomes>} after it, {@code outcome <line>} for
 * each {@link dev.fencing.runtime.WorkOutcome} (see {@link OutcomeLine}), and {@code stopped} after
 * the line {@code stop}.
 *
 * <p>Arguments: JDBC URL, user, password, schema, queue, owner, lease ms, and where to wait: {@code
 * handler} or {@code commit}.
 */
public final class RuntimeEmailWorkerMain {

  private RuntimeEmailWorkerMain() {}

  public static void main(String[] args) throws Exception {
    String owner = args[5];
    boolean inHandler = args[7].equals("handler");
    Semaphore go = new Semaphore(0);
    FencedQueue real =
        PostgresFencing.builder(
                new PostgresFixture.Database(args[0], args[1], args[2], "args").pooledDataSource(4))
            .schema(args[3])
            .install(false)
            .build()
            .queue();
    // a cold JVM's first claim (class loading, the pool's first connections, the first plans) once
    // took longer than the 3 s lease on a loaded CI machine: the runtime released the job unstarted
    // and the scenario never happened; one claim on an empty queue before the runtime starts pays
    // for all of that before the test enqueues anything the zombie could take
    real.claimBatch(args[4] + "_warm_up", owner, Duration.ofSeconds(1), 1);
    FencedQueue queue =
        new ForwardingQueue(real) {
          @Override
          public List<CommitOutcome> completeAll(List<Completion> completions) {
            print("committing " + completions.stream().map(c -> c.lease().jobId()).toList());
            if (!inHandler) {
              go.acquireUninterruptibly();
            }
            List<CommitOutcome> outcomes = real.completeAll(completions);
            print("committed " + outcomes);
            return outcomes;
          }
        };
    FencedWorkers workers =
        FencedWorkers.builder(queue)
            .owner(owner)
            .outboxQueue(
                args[4],
                (job, cancellation) -> {
                  print("handling " + job.id() + " " + job.epoch().value());
                  if (inHandler) {
                    go.acquireUninterruptibly();
                  }
                  return HandlerResult.of(
                      "{\"by\": \"" + owner + "\"}",
                      new OutboxMessage(
                          "mail",
                          "ada@example.com",
                          "{\"to\": \"ada@example.com\", \"by\": \"" + owner + "\"}"));
                },
                q ->
                    q.concurrency(1)
                        .batchSize(1)
                        .leaseLength(Duration.ofMillis(Long.parseLong(args[6])))
                        // hand the job over whatever is left of its lease: on a loaded machine (a
                        // JVM that took 28 s to start) the zombie once had 745 ms left, released
                        // the job instead of handling it, and the scenario never happened; the
                        // test freezes it in the handler anyway
                        .minLeaseLeft(Duration.ofMillis(1)))
            .onOutcome(outcome -> print("outcome " + OutcomeLine.of(outcome).format()))
            .start();
    print("ready");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null && !line.equals("stop"); line = in.readLine()) {
      if (line.equals("go")) {
        go.release();
      }
    }
    workers.shutdown(Duration.ofSeconds(5));
    print("stopped");
  }

  private static synchronized void print(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
