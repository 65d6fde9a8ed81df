package dev.fencing.testkit.process;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.JobSnapshot;
import dev.fencing.testkit.db.PostgresFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The seed's proof, with real processes: worker A (the zombie, a second JVM) claims a job with a
 * short lease and is frozen with {@code SIGSTOP}; the lease runs out on the database clock; worker
 * B (a third JVM) reclaims the job; then, in one of two orderings, both reach the receiver and try
 * to commit. A correct backend ends both orderings as {@link #expected(Ordering)} says.
 *
 * @since 0.1
 */
public final class ZombieScenario {

  /** Who reaches the receiver first once the zombie is thawed. */
  public enum Ordering {
    NEW_OWNER_FIRST("new owner reaches the receiver first"),
    ZOMBIE_FIRST("zombie reaches the receiver first");

    private final String description;

    Ordering(String description) {
      this.description = description;
    }

    /** Returns the case as the seed's table words it. */
    public String description() {
      return description;
    }
  }

  /**
   * One row of the seed's table, as observed.
   *
   * @param zombieCall what became of the zombie's receiver call
   * @param zombieCommit what became of the zombie's commit
   * @param finalState the job's epoch, and whose result and receiver payload survived
   */
  public record Row(Ordering ordering, String zombieCall, String zombieCommit, String finalState) {}

  /**
   * What one run observed: the row, and the timeline of who did what.
   *
   * @param timeline one line per step, in order
   */
  public record Report(Row row, List<String> timeline) {}

  private static final String QUEUE = "zombie_demo";
  private static final String ZOMBIE_PAYLOAD = "{\"by\": \"zombie\"}";
  private static final String HEALTHY_PAYLOAD = "{\"by\": \"new owner\"}";

  private final PostgresFixture.Database database;
  private final Class<? extends FencingBackend> backend;
  private final String schema;
  private final Duration leaseLength;

  /**
   * @param schema dropped and recreated by every run
   * @param leaseLength the zombie's lease; the run waits it out
   */
  public ZombieScenario(
      PostgresFixture.Database database,
      Class<? extends FencingBackend> backend,
      String schema,
      Duration leaseLength) {
    this.database = Objects.requireNonNull(database, "database");
    this.backend = Objects.requireNonNull(backend, "backend");
    this.schema = Objects.requireNonNull(schema, "schema"); // the backend checks it at each run
    this.leaseLength = Objects.requireNonNull(leaseLength, "leaseLength");
    if (leaseLength.isNegative() || leaseLength.isZero()) {
      throw new IllegalArgumentException("leaseLength must be positive, but was " + leaseLength);
    }
  }

  /** Returns the row the seed's table expects for {@code ordering}. */
  public static Row expected(Ordering ordering) {
    return new Row(
        ordering,
        ordering == Ordering.NEW_OWNER_FIRST ? "rejected" : "accepted, then superseded",
        "rejected",
        "epoch 2");
  }

  /** Runs one ordering end to end in a freshly recreated schema. */
  public Report run(Ordering ordering) {
    database.recreateSchema(schema);
    DataSource ds = database.dataSource();
    FencingBackend local = FencingBackend.load(backend.getName());
    FencedQueue queue = local.queue(ds, schema);
    FencedReceiver receiver = local.receiver(ds, schema);
    List<String> timeline = new ArrayList<>();
    long jobId = queue.enqueue(QUEUE, "{\"task\": \"demo\"}");
    try (WorkerProcess zombie = WorkerProcess.start("zombie", backend, database, schema);
        WorkerProcess healthy = WorkerProcess.start("new owner", backend, database, schema)) {
      step(timeline, zombie, "claim " + QUEUE + " zombie " + leaseLength.toMillis());
      zombie.freeze();
      timeline.add("zombie (pid " + zombie.pid() + "): SIGSTOP, frozen");
      String claim = awaitReclaim(healthy);
      timeline.add(
          "new owner: claim after the lease expired on the database clock -> "
              + withoutExpiry(claim));

      String zombieCall;
      String zombieCommit;
      if (ordering == Ordering.NEW_OWNER_FIRST) {
        step(timeline, healthy, "deliver " + jobId + " " + HEALTHY_PAYLOAD);
        zombieCall = thawAndCall(timeline, zombie, "deliver " + jobId + " " + ZOMBIE_PAYLOAD);
        zombieCommit = step(timeline, zombie, "complete " + jobId + " " + ZOMBIE_PAYLOAD);
      } else {
        zombieCall = thawAndCall(timeline, zombie, "deliver " + jobId + " " + ZOMBIE_PAYLOAD);
        step(timeline, healthy, "deliver " + jobId + " " + HEALTHY_PAYLOAD);
        zombieCommit = step(timeline, zombie, "complete " + jobId + " " + ZOMBIE_PAYLOAD);
      }
      step(timeline, healthy, "complete " + jobId + " " + HEALTHY_PAYLOAD);

      JobSnapshot job = queue.find(jobId).orElseThrow();
      Optional<FencedReceiver.Receipt> newest = receiver.newest(Long.toString(jobId));
      timeline.add(
          "final: job at epoch "
              + job.epoch()
              + " with result "
              + job.result()
              + "; receiver at "
              + newest.map(r -> r.epoch() + " with " + r.payload()).orElse("nothing"));
      return new Report(
          new Row(
              ordering,
              describeCall(zombieCall, newest),
              zombieCommit.startsWith("ok") ? "accepted" : "rejected",
              finalState(job, newest)),
          timeline);
    }
  }

  private String awaitReclaim(WorkerProcess healthy) {
    long deadline = System.nanoTime() + leaseLength.plusSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      String reply = healthy.call("claim " + QUEUE + " healthy 60000");
      if (!reply.equals("ok none")) {
        return reply;
      }
      sleep(Duration.ofMillis(20));
    }
    throw new IllegalStateException("the zombie's lease never expired on the database clock");
  }

  private static String thawAndCall(List<String> timeline, WorkerProcess zombie, String command) {
    // The command is written while the zombie is frozen: it carries on as if no time had passed.
    zombie.send(command);
    zombie.thaw();
    timeline.add("zombie: SIGCONT, wakes up");
    String reply = zombie.awaitReply();
    timeline.add(zombie.name() + ": " + command + " -> " + reply);
    return reply;
  }

  private static String step(List<String> timeline, WorkerProcess worker, String command) {
    String reply = worker.call(command);
    timeline.add(worker.name() + ": " + command + " -> " + withoutExpiry(reply));
    return reply;
  }

  /** Drops the lease's expiry (milliseconds since 1970) from a claim's reply, for reading. */
  private static String withoutExpiry(String reply) {
    String[] words = reply.split(" ");
    return reply.startsWith("ok claimed") && words.length == 5
        ? String.join(" ", words[0], words[1], words[2], words[3])
        : reply;
  }

  private static String describeCall(String reply, Optional<FencedReceiver.Receipt> newest) {
    if (!reply.startsWith("ok")) {
      return "rejected";
    }
    boolean zombieStillHolds = newest.map(r -> r.payload().equals(ZOMBIE_PAYLOAD)).orElse(false);
    return zombieStillHolds ? "accepted, and never superseded" : "accepted, then superseded";
  }

  private static String finalState(JobSnapshot job, Optional<FencedReceiver.Receipt> newest) {
    List<String> faults = new ArrayList<>();
    if (!HEALTHY_PAYLOAD.equals(job.result())) {
      faults.add("job result " + job.result());
    }
    if (newest.isEmpty() || !newest.get().payload().equals(HEALTHY_PAYLOAD)) {
      faults.add("receiver holds " + newest.map(FencedReceiver.Receipt::payload).orElse("nothing"));
    }
    if (newest.isPresent() && newest.get().epoch().value() != job.epoch()) {
      faults.add("receiver at " + newest.get().epoch());
    }
    String epoch = "epoch " + job.epoch();
    return faults.isEmpty() ? epoch : epoch + " (" + String.join(", ", faults) + ")";
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
