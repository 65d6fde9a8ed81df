package dev.fencing.demo;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.WorkOutcome;
import dev.fencing.testkit.db.PostgresFixture;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The worker of {@link FrozenHolderCancelTest}: a {@link FencedWorkers} on the PostgreSQL queue,
 * delivering every result to a PostgreSQL receiver before committing it. Its handler prints {@code
 * handling <job> <epoch>}, then waits until the file {@code <go>/<job>} exists, sleeping through
 * interrupts (a handler that ignores its cancellation, the worst case), and returns a result naming
 * the job and epoch. Every outcome is printed as one line: {@code outcome <kind> <job> <stage>
 * <refusal>}. Stops on the line {@code stop}.
 *
 * <p>Arguments: JDBC URL, user, password, schema, engine ({@code append} or {@code update}), lease
 * ms, heartbeat ms, go directory.
 */
public final class CancelWorkerMain {

  static final String QUEUE = "cancels";

  static final String RECEIVER = "cancels";

  private CancelWorkerMain() {}

  public static void main(String[] args) throws Exception {
    DataSource db =
        new PostgresFixture.Database(args[0], args[1], args[2], "argument").dataSource();
    PostgresFencing fencing =
        PostgresFencing.builder(db)
            .schema(args[3])
            .install(false)
            .engine(
                args[4].equals("update")
                    ? PostgresFencing.Engine.UPDATE_IN_PLACE
                    : PostgresFencing.Engine.APPEND_ONLY)
            .build();
    FencedQueue queue = fencing.queue();
    FencedReceiver receiver = fencing.receiver(RECEIVER);
    Path go = Path.of(args[7]);
    FencedWorkers workers =
        FencedWorkers.builder(queue)
            .receiver(receiver)
            .owner("frozen")
            .queue(
                QUEUE,
                (job, cancellation) -> handle(job.job(), go),
                q ->
                    q.concurrency(2)
                        .leaseLength(Duration.ofMillis(Long.parseLong(args[5])))
                        .heartbeatInterval(Duration.ofMillis(Long.parseLong(args[6]))))
            .onOutcome(CancelWorkerMain::print)
            .start();
    System.out.println("ready");
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null && !line.equals("stop"); ) {
      line = in.readLine();
    }
    workers.shutdown(Duration.ofSeconds(5));
    System.out.println("stopped");
    System.out.flush();
  }

  private static String handle(Job job, Path go) {
    System.out.println("handling " + job.id() + " " + job.epoch().value());
    System.out.flush();
    while (!Files.exists(go.resolve(Long.toString(job.id())))) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        // ignores its cancellation on purpose: the runtime must drop what it returns
      }
    }
    return "{\"job\": " + job.id() + ", \"epoch\": " + job.epoch().value() + "}";
  }

  private static void print(WorkOutcome outcome) {
    String line =
        switch (outcome) {
          case WorkOutcome.Completed c -> "outcome completed " + c.job().id() + " - -";
          case WorkOutcome.FencedOff f ->
              "outcome fenced "
                  + f.job().id()
                  + " "
                  + f.stage()
                  + " "
                  + f.refusal().getClass().getSimpleName();
          case WorkOutcome.Failed f -> "outcome failed " + f.job().id() + " - " + f.error();
          case WorkOutcome.Released r -> "outcome released " + r.job().id() + " - " + r.reason();
          case WorkOutcome.Abandoned a -> "outcome abandoned " + a.job().id() + " - -";
        };
    System.out.println(line);
    System.out.flush();
  }
}
