package dev.fencing.ha;

import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.ForwardingFencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.PrimaryWaitingDataSource;
import dev.fencing.runtime.Cancellation;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.QueueStats;
import dev.fencing.runtime.WorkOutcome;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.process.JavaProcess;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * One worker JVM of {@link FailoverFaultTest}: a {@link FencedWorkers} on the replicated queue (the
 * cluster's multi-host URL) that delivers every result to a receiver in another database, which no
 * failover touches.
 *
 * <p>Prints, one line each, tab-separated: {@code ready}; {@code claim <job> <epoch> <millis>} when
 * a handler starts on a claim (the wall clock, to time how soon claims come back after a failover);
 * {@code outcome <type> <job> <epoch> <detail>} for each {@link WorkOutcome}; {@code stats ...} and
 * {@code stopped} after the line {@code stop}.
 *
 * <p>Arguments: queue URL, user, password, queue schema, receiver URL, user, password, receiver
 * schema, receiver name, queue, owner, worker, lease ms, concurrency, batch size, drain timeout ms,
 * {@code sync} or {@code async} (the library's synchronous mode), and the variant: {@code real}, or
 * {@code no-generation}: the queue's connections resolve {@code pg_walfile_name} to a function of
 * the schema {@value #NO_GENERATION_SCHEMA} that names timeline 1 whatever the server's, so every
 * claim computes generation 0 (the generation turned off, to see the test's checks fail).
 *
 * <p>The queue's pool is the one docs/HA.md advises ({@link AdvisedPool}) unless the system
 * properties {@value #POOL_PROPERTY} and {@value #CONNECTION_TIMEOUT_PROPERTY} say otherwise; with
 * {@value #TRACE_PROPERTY} the worker also prints {@code connect <start> <end> <outcome>} for each
 * connection attempt of that pool and {@code claimBatch <start> <end> <jobs or failure>} for each
 * claim ({@link RecoveryAfterKillTest}).
 */
public final class FailoverWorkerMain {

  /** The schema of the variant's {@code pg_walfile_name}; see {@link FailoverFaultTest}. */
  static final String NO_GENERATION_SCHEMA = "fencing_no_generation";

  /** The system property: how long the queue's pool waits for a connection, in ms. */
  static final String CONNECTION_TIMEOUT_PROPERTY = "fencing.worker.connectionTimeoutMs";

  /**
   * The system property that names what the queue's pool connects through: {@code waiting} (the
   * default, as docs/HA.md advises: {@link PrimaryWaitingDataSource} on pgjdbc's data source) or
   * {@code plain} (pgjdbc's data source alone).
   */
  static final String POOL_PROPERTY = "fencing.worker.pool";

  /** The system property that has every connection attempt and claim printed. */
  static final String TRACE_PROPERTY = "fencing.worker.trace";

  private static final boolean TRACE = Boolean.getBoolean(TRACE_PROPERTY);

  private static final Pattern MS = Pattern.compile("\"ms\":\\s*(\\d+)");

  private FailoverWorkerMain() {}

  /**
   * Starts a worker JVM named {@code worker} on {@code cluster}'s queue {@code queue} in {@code
   * schema} (its multi-host URL), delivering to {@code receiver} in {@code receiverSchema}: batches
   * of 10, a drain of three leases and 2 s, quiet logs, and {@code options} for its JVM.
   */
  static JavaProcess start(
      String worker,
      List<String> options,
      PatroniCluster cluster,
      String schema,
      TestSchema receiverSchema,
      String receiver,
      String queue,
      String owner,
      Duration lease,
      int concurrency,
      String mode,
      String variant) {
    List<String> jvm = new ArrayList<>();
    jvm.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    jvm.add("-Dorg.slf4j.simpleLogger.log.com.zaxxer.hikari=error");
    jvm.addAll(options);
    return JavaProcess.start(
        worker,
        jvm,
        FailoverWorkerMain.class,
        List.of(
            cluster.jdbcUrl(),
            cluster.user(),
            cluster.password(),
            schema,
            receiverSchema.database().jdbcUrl(),
            receiverSchema.database().user(),
            receiverSchema.database().password(),
            receiverSchema.name(),
            receiver,
            queue,
            owner,
            worker,
            Long.toString(lease.toMillis()),
            Integer.toString(concurrency),
            "10",
            Long.toString(lease.multipliedBy(3).plusSeconds(2).toMillis()),
            mode,
            variant));
  }

  public static void main(String[] args) throws Exception {
    String owner = args[10];
    String worker = args[11];
    int concurrency = Integer.parseInt(args[13]);
    boolean sync = args[16].equals("sync");
    String queueUrl = args[0];
    if (args[17].equals("no-generation")) {
      // pg_catalog named last: the schema's functions come first
      queueUrl += "&currentSchema=" + NO_GENERATION_SCHEMA + ",pg_catalog";
    }
    // claimer, heartbeat, committer, listener, and room for a reconnect
    DataSource queuePool =
        queuePool(new PostgresFixture.Database(queueUrl, args[1], args[2], "args"));
    DataSource receiverPool =
        new PostgresFixture.Database(args[4], args[5], args[6], "args")
            .pooledDataSource(Math.max(2, concurrency / 2), Duration.ofSeconds(3));
    FencedQueue built =
        PostgresFencing.builder(queuePool)
            .schema(args[3])
            .install(false)
            .synchronousReplication(sync)
            .build()
            .queue();
    FencedQueue queue = TRACE ? new TracedClaims(built) : built;
    FencedReceiver receiver =
        PostgresFencing.builder(receiverPool)
            .schema(args[7])
            .install(false)
            .build()
            .receiver(args[8]);
    Duration drain = Duration.ofMillis(Long.parseLong(args[15]));
    FencedWorkers workers =
        FencedWorkers.builder(queue)
            .receiver(receiver)
            .owner(owner)
            .drainTimeout(drain)
            .queue(
                args[9],
                (job, cancellation) -> handle(job.job(), cancellation, owner, worker),
                q ->
                    q.concurrency(concurrency)
                        .batchSize(Integer.parseInt(args[14]))
                        .leaseLength(Duration.ofMillis(Long.parseLong(args[12])))
                        .retryDelay(Duration.ofMillis(100)))
            .onOutcome(FailoverWorkerMain::outcome)
            .start();
    print("ready");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null && !line.equals("stop"); ) {
      line = in.readLine();
    }
    boolean drained = workers.shutdown(drain);
    QueueStats s = workers.stats().get(args[9]);
    print(
        String.join(
            "\t",
            "stats",
            "drained=" + drained,
            "claimed=" + s.claimed(),
            "ended=" + s.ended(),
            "inFlight=" + s.inFlight(),
            "storeErrors=" + s.storeErrors()));
    print("stopped");
    System.exit(0); // the pools' threads are not daemons
  }

  /**
   * The queue's pool: HikariCP, at most 5 connections, none kept idle, {@value
   * #CONNECTION_TIMEOUT_PROPERTY} ms to wait for one (2,000 by default, as docs/HA.md advises);
   * with {@value #TRACE_PROPERTY} every connection attempt is printed ({@link TracedDataSource}).
   */
  private static DataSource queuePool(PostgresFixture.Database db) {
    DataSource source =
        switch (System.getProperty(POOL_PROPERTY, "waiting")) {
          case "waiting" -> new PrimaryWaitingDataSource(db.dataSource());
          case "plain" -> db.dataSource();
          default -> throw new IllegalArgumentException(POOL_PROPERTY);
        };
    if (TRACE) {
      source = TracedDataSource.of(source, FailoverWorkerMain::print);
    }
    return AdvisedPool.hikari(
        source,
        5,
        Duration.ofMillis(
            Long.getLong(CONNECTION_TIMEOUT_PROPERTY, AdvisedPool.CONNECTION_TIMEOUT.toMillis())),
        "queue");
  }

  /** Prints {@code claimBatch <start> <end> <jobs or failure>} for each claim of the runtime. */
  private static final class TracedClaims extends ForwardingFencedQueue {
    TracedClaims(FencedQueue queue) {
      super(queue);
    }

    @Override
    public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
      long start = System.currentTimeMillis();
      String outcome = "?";
      try {
        List<Job> jobs = super.claimBatch(queue, owner, leaseLength, batchSize);
        outcome = Integer.toString(jobs.size());
        return jobs;
      } catch (RuntimeException e) {
        outcome = String.valueOf(e).replaceAll("\\s+", " ");
        throw e;
      } finally {
        print(
            String.join(
                "\t",
                "claimBatch",
                Long.toString(start),
                Long.toString(System.currentTimeMillis()),
                outcome));
      }
    }
  }

  private static String handle(Job job, Cancellation cancellation, String owner, String worker)
      throws InterruptedException {
    print(
        String.join(
            "\t",
            "claim",
            Long.toString(job.id()),
            Long.toString(job.epoch().value()),
            Long.toString(System.currentTimeMillis())));
    Matcher ms = MS.matcher(job.payload());
    Thread.sleep(ms.find() ? Long.parseLong(ms.group(1)) : 0);
    cancellation.throwIfCancelled();
    return "{\"job\": %d, \"epoch\": %d, \"owner\": \"%s\", \"worker\": \"%s\"}"
        .formatted(job.id(), job.epoch().value(), owner, worker);
  }

  private static void outcome(WorkOutcome outcome) {
    String detail =
        switch (outcome) {
          case WorkOutcome.Completed c ->
              (c.delivery() == null ? "none" : acceptance(c.delivery()))
                  + "/"
                  + acceptance(c.commit());
          case WorkOutcome.FencedOff f -> f.stage() + " " + f.refusal().getClass().getSimpleName();
          case WorkOutcome.Failed f -> String.valueOf(f.error());
          case WorkOutcome.Released r -> r.reason();
          case WorkOutcome.Abandoned a -> a.reason() + (a.error() == null ? "" : ": " + a.error());
        };
    print(
        String.join(
            "\t",
            "outcome",
            outcome.getClass().getSimpleName(),
            Long.toString(outcome.job().id()),
            Long.toString(outcome.job().epoch().value()),
            detail.replaceAll("\\s+", " ")));
  }

  private static String acceptance(FencedOutcome.Accepted accepted) {
    return accepted.repeat() ? "repeat" : "new";
  }

  private static synchronized void print(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
