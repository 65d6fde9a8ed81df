package dev.fencing.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.Cancellation;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.QueueStats;
import dev.fencing.runtime.WorkOutcome;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One worker process of {@link RuntimeFaultTest}: a {@link FencedWorkers} on the PostgreSQL queue
 * with a PostgreSQL receiver, over a HikariCP pool whose connections carry the application name
 * {@code chaos_<worker>} (so the test can terminate their backends).
 *
 * <p>Each job's payload says how long its handler runs ({@code ms}) and whether it ignores
 * cancellation ({@code stubborn}: it sleeps through interrupts and returns a result all the same,
 * which the runtime must drop). The result names the job, the epoch, the owner and the worker.
 *
 * <p>Every outcome is appended to the log file as one line, written with one unbuffered {@code
 * write}, so a {@code SIGKILL} loses at most the line being written. Prints {@code ready} once
 * running; stops on the line {@code stop} or at the end of its input, runs the runtime's shutdown,
 * logs its counters, prints {@code stopped} and exits 0.
 *
 * <p>Arguments: JDBC URL, user, password, schema, queue, owner, worker, log file, lease ms,
 * concurrency, batch size, drain timeout ms, and the backend: {@code real}, or {@code no-cas} for
 * {@link BrokenVariants.NoCompareAndSet} (to see the test's checks fail).
 */
public final class ChaosWorkerMain {

  /** The receiver's name in the schema. */
  static final String RECEIVER = "chaos";

  /** The prefix of every worker connection's {@code application_name}. */
  static final String APPLICATION_PREFIX = "chaos_";

  private static final Pattern MS = Pattern.compile("\"ms\":\\s*(\\d+)");
  private static final Pattern STUBBORN = Pattern.compile("\"stubborn\":\\s*true");

  private ChaosWorkerMain() {}

  public static void main(String[] args) throws Exception {
    String owner = args[5];
    String worker = args[6];
    Duration lease = Duration.ofMillis(Long.parseLong(args[8]));
    int concurrency = Integer.parseInt(args[9]);
    try (HikariDataSource pool = pool(args[0], args[1], args[2], worker, concurrency);
        OutcomeLog log = new OutcomeLog(args[7])) {
      FencedQueue queue =
          args[12].equals("no-cas")
              ? new BrokenVariants.NoCompareAndSet().queue(pool, args[3])
              : PostgresFencing.builder(pool)
                  .schema(args[3])
                  .install(false)
                  .engine(
                      args[12].equals(RuntimeFaultTest.UPDATE_IN_PLACE)
                          ? PostgresFencing.Engine.UPDATE_IN_PLACE
                          : PostgresFencing.Engine.APPEND_ONLY)
                  .build()
                  .queue();
      FencedReceiver receiver =
          PostgresFencing.builder(pool).schema(args[3]).build().receiver(RECEIVER);
      log.comment(
          "start worker=" + worker + " owner=" + owner + " pid=" + ProcessHandle.current().pid());
      FencedWorkers workers =
          FencedWorkers.builder(queue)
              .receiver(receiver)
              .owner(owner)
              .drainTimeout(Duration.ofMillis(Long.parseLong(args[11])))
              .queue(
                  args[4],
                  (job, cancellation) -> handle(job.job(), cancellation, owner, worker),
                  q ->
                      q.concurrency(concurrency)
                          .batchSize(Integer.parseInt(args[10]))
                          .leaseLength(lease)
                          .retryDelay(Duration.ofMillis(100)))
              .onOutcome(log::outcome)
              .start();
      pool.getHikariConfigMXBean().setConnectionTimeout(2_000);
      System.out.println("ready");
      System.out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null && !line.equals("stop"); ) {
        line = in.readLine();
      }
      boolean drained = workers.shutdown(Duration.ofMillis(Long.parseLong(args[11])));
      QueueStats s = workers.stats().get(args[4]);
      log.comment(
          "stats drained="
              + drained
              + " claimed="
              + s.claimed()
              + " ended="
              + s.ended()
              + " inFlight="
              + s.inFlight()
              + " storeErrors="
              + s.storeErrors()
              + " callbackErrors="
              + s.callbackErrors()
              + " claimStatements="
              + s.claimStatements()
              + " commitStatements="
              + s.commitStatements()
              + " renewStatements="
              + s.renewStatements());
    }
    System.out.println("stopped");
    System.out.flush();
  }

  private static String handle(Job job, Cancellation cancellation, String owner, String worker)
      throws InterruptedException {
    Matcher ms = MS.matcher(job.payload());
    long millis = ms.find() ? Long.parseLong(ms.group(1)) : 0;
    if (STUBBORN.matcher(job.payload()).find()) {
      sleepThroughInterrupts(millis);
    } else {
      Thread.sleep(millis);
      cancellation.throwIfCancelled();
    }
    return "{\"job\": "
        + job.id()
        + ", \"epoch\": "
        + job.epoch().value()
        + ", \"owner\": \""
        + owner
        + "\", \"worker\": \""
        + worker
        + "\"}";
  }

  private static void sleepThroughInterrupts(long millis) {
    long end = System.nanoTime() + Duration.ofMillis(millis).toNanos();
    boolean interrupted = false;
    for (long left = end - System.nanoTime(); left > 0; left = end - System.nanoTime()) {
      try {
        Thread.sleep(Duration.ofNanos(left));
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static HikariDataSource pool(
      String url, String user, String password, String worker, int concurrency) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    if (!user.isEmpty()) {
      config.setUsername(user);
    }
    if (!password.isEmpty()) {
      config.setPassword(password);
    }
    config.addDataSourceProperty("ApplicationName", APPLICATION_PREFIX + worker);
    // claimer, heartbeat, committer, and the handlers' receiver calls
    config.setMaximumPoolSize(3 + Math.max(1, concurrency / 2));
    config.setMinimumIdle(0);
    // 10 s while the worker starts (a fresh JVM's first connection on a loaded machine took over
    // 2 s and the worker died installing), then 2 s (see main) so that faults are felt quickly
    config.setConnectionTimeout(10_000);
    config.setInitializationFailTimeout(-1);
    config.setPoolName("chaos-" + worker);
    // named, not detected: HikariCP detects the default isolation on its first connection, and when
    // a
    // fault closes that connection right then, it sets -1 on every later one, which PgJDBC refuses
    config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    return new HikariDataSource(config);
  }

  /** The outcome log: one line per outcome, each written with one unbuffered write. */
  static final class OutcomeLog implements AutoCloseable {
    private final OutputStream out;

    OutcomeLog(String path) throws IOException {
      this.out = new FileOutputStream(path, true);
    }

    void comment(String text) {
      write("# " + text);
    }

    void outcome(WorkOutcome outcome) {
      write(OutcomeLine.of(outcome).format());
    }

    private synchronized void write(String line) {
      try {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }

  /** Returns whether an accepted write was a repeat, as the log spells it. */
  static String acceptance(FencedOutcome.Accepted accepted) {
    return accepted.repeat() ? "repeat" : "new";
  }
}
