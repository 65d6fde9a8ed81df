package dev.fencing.testkit.process;

import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.testkit.db.PostgresFixture;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The main class of a worker process, driven one line at a time on standard input. It keeps its
 * leases the way a real worker does: a stalled one wakes up still believing it owns its jobs.
 *
 * <p>Arguments: backend class, JDBC URL, user, password, schema. Commands and replies (one line
 * each; a reply starts with {@code ok}, {@code refused} or {@code error}):
 *
 * <pre>
 * ping                              ok pong PID
 * reset                             ok reset          (forgets every lease)
 * claim QUEUE OWNER LEASE_MS        ok claimed ID EPOCH EXPIRES_EPOCH_MS | ok none
 * claimbatch QUEUE OWNER LEASE_MS N ok claimed ID:EPOCH,ID:EPOCH,... | ok none
 * deliver LEASE [JSON]              ok accepted EPOCH repeat=B | refused TYPE epoch=E current=C
 * complete LEASE [JSON]             ok accepted EPOCH repeat=B | refused TYPE epoch=E current=C
 * mail LEASE JSON                   as complete, with JSON also an outbox message to "mail"
 * renew LEASE LEASE_MS              ok renewed EPOCH EXPIRES_EPOCH_MS | refused ...
 * fail LEASE DELAY_MS ERROR         ok accepted EPOCH repeat=B | refused ...
 * release LEASE                     ok accepted EPOCH repeat=B | refused ...
 * drain QUEUE OWNER LEASE_MS N      ok drained ID:EPOCH,... (claims N at a time and completes each)
 * quit
 * </pre>
 *
 * LEASE is {@code ID} (the newest lease held on that job) or {@code ID@EPOCH}: a worker that claims
 * a job again under the same owner name keeps its older lease too, as a zombie thread would.
 *
 * <p>Without JSON, {@code deliver} and {@code complete} use the job's result: the backend's {@link
 * FencingBackend#handle handler} output wrapped as {@code {"epoch": E, "worker": "OWNER", "value":
 * ...}}, so that a checker can tell which claim produced what.
 *
 * @since 0.1
 */
public final class PuppetWorker {

  private final FencingBackend backend;
  private final FencedQueue queue;
  private final FencedReceiver receiver;

  /** Leases held, by job id, then epoch. */
  private final Map<Long, NavigableMap<Long, Job>> jobs = new HashMap<>();

  private final Map<Lease, String> results = new HashMap<>();

  private PuppetWorker(FencingBackend backend, FencedQueue queue, FencedReceiver receiver) {
    this.backend = backend;
    this.queue = queue;
    this.receiver = receiver;
  }

  /** Runs the command loop until {@code quit} or the end of standard input. */
  public static void main(String[] args) throws IOException {
    if (args.length != 5) {
      System.err.println("usage: PuppetWorker BACKEND_CLASS JDBC_URL USER PASSWORD SCHEMA");
      System.exit(2);
    }
    // a fresh JVM's first connection (driver loading, SCRAM in cold code) took over 2 s on a
    // loaded machine and killed the worker at start: 10 s while it starts, then 2 s again, so that
    // a database that goes away mid-interleaving is still reported quickly
    var ds =
        (com.zaxxer.hikari.HikariDataSource)
            new PostgresFixture.Database(args[1], args[2], args[3], "worker")
                .pooledDataSource(2, java.time.Duration.ofSeconds(10));
    try (java.sql.Connection first = ds.getConnection()) {
      first.isValid(10);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("no connection to " + args[1] + ": " + e.getMessage(), e);
    }
    FencingBackend backend = FencingBackend.load(args[0]);
    PuppetWorker worker =
        new PuppetWorker(backend, backend.queue(ds, args[4]), backend.receiver(ds, args[4]));
    ds.getHikariConfigMXBean().setConnectionTimeout(2_000);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    out.println("ok ready " + ProcessHandle.current().pid());
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (line.equals("quit")) {
        break;
      }
      out.println(worker.execute(line));
    }
    System.exit(0);
  }

  String execute(String line) {
    String[] words = line.split(" ", 2);
    String rest = words.length > 1 ? words[1] : "";
    try {
      return switch (words[0]) {
        case "ping" -> "ok pong " + ProcessHandle.current().pid();
        case "reset" -> reset();
        case "claim" -> claim(rest.split(" "), 1);
        case "claimbatch" -> claim(rest.split(" "), Integer.parseInt(rest.split(" ")[3]));
        case "deliver" -> deliver(rest.split(" ", 2));
        case "complete" -> complete(rest.split(" ", 2));
        case "mail" -> mail(rest.split(" ", 2));
        case "renew" -> renew(rest.split(" "));
        case "fail" -> fail(rest.split(" ", 3));
        case "release" -> accepted(queue.release(lease(rest)));
        case "drain" -> drain(rest.split(" "));
        default -> "error unknown command '" + words[0] + "'";
      };
    } catch (FencedOffException e) {
      return refused(e.refusal());
    } catch (RuntimeException e) {
      return "error " + e.toString().replace('\n', ' ');
    }
  }

  private String reset() {
    jobs.clear();
    results.clear();
    return "ok reset";
  }

  private String claim(String[] args, int batchSize) {
    Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
    List<Job> claimed =
        batchSize == 1
            ? queue.claim(args[0], args[1], lease).map(List::of).orElse(List.of())
            : queue.claimBatch(args[0], args[1], lease, batchSize);
    if (claimed.isEmpty()) {
      return "ok none";
    }
    for (Job job : claimed) {
      jobs.computeIfAbsent(job.id(), id -> new TreeMap<>()).put(job.epoch().value(), job);
    }
    if (batchSize == 1) {
      Job job = claimed.getFirst();
      return "ok claimed "
          + job.id()
          + " "
          + job.epoch().value()
          + " "
          + job.lease().expiresAt().toEpochMilli();
    }
    return "ok claimed "
        + claimed.stream()
            .map(j -> j.id() + ":" + j.epoch().value())
            .collect(Collectors.joining(","));
  }

  private String drain(String[] args) {
    Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
    int batchSize = Integer.parseInt(args[3]);
    StringBuilder done = new StringBuilder();
    for (List<Job> batch = queue.claimBatch(args[0], args[1], lease, batchSize);
        !batch.isEmpty();
        batch = queue.claimBatch(args[0], args[1], lease, batchSize)) {
      for (Job job : batch) {
        queue.complete(job.lease(), "{\"by\": \"" + args[1] + "\"}");
        done.append(done.isEmpty() ? "" : ",")
            .append(job.id())
            .append(':')
            .append(job.epoch().value());
      }
    }
    return "ok drained " + done;
  }

  private String deliver(String[] args) {
    Lease lease = lease(args[0]);
    String payload = args.length > 1 ? args[1] : result(lease);
    FencedOutcome outcome = receiver.deliver(lease.key(), lease.epoch(), payload);
    return switch (outcome) {
      case FencedOutcome.Accepted a -> accepted(a);
      case FencedOutcome.Refused r -> refused(r);
    };
  }

  private String complete(String[] args) {
    Lease lease = lease(args[0]);
    String result = args.length > 1 ? args[1] : result(lease);
    return accepted(queue.complete(lease, result));
  }

  /** Completes with {@code args[1]} as the result and as one message to the outbox's "mail". */
  private String mail(String[] args) {
    Lease lease = lease(args[0]);
    OutboxMessage email = new OutboxMessage("mail", "job-" + lease.jobId(), args[1]);
    return accepted(queue.complete(lease, args[1], List.of(email)));
  }

  private String renew(String[] args) {
    Lease held = lease(args[0]);
    Lease renewed = queue.renew(held, Duration.ofMillis(Long.parseLong(args[1])));
    Job job = jobs.get(held.jobId()).get(held.epoch().value());
    jobs.get(held.jobId())
        .put(held.epoch().value(), new Job(renewed, job.queue(), job.payload(), job.attempt()));
    String result = results.remove(held);
    if (result != null) {
      results.put(renewed, result);
    }
    return "ok renewed " + renewed.epoch().value() + " " + renewed.expiresAt().toEpochMilli();
  }

  private String fail(String[] args) {
    return accepted(
        queue.fail(lease(args[0]), args[2], Duration.ofMillis(Long.parseLong(args[1]))));
  }

  private String result(Lease lease) {
    return results.computeIfAbsent(
        lease,
        l -> {
          Job job = jobs.get(l.jobId()).get(l.epoch().value());
          return "{\"epoch\": "
              + job.epoch().value()
              + ", \"worker\": \""
              + job.lease().owner()
              + "\", \"value\": "
              + backend.handle(job)
              + "}";
        });
  }

  private Lease lease(String ref) {
    String[] parts = ref.trim().split("@", 2);
    NavigableMap<Long, Job> held = jobs.get(Long.parseLong(parts[0]));
    Job job =
        held == null
            ? null
            : parts.length == 1 ? held.lastEntry().getValue() : held.get(Long.parseLong(parts[1]));
    if (job == null) {
      throw new IllegalArgumentException("no lease held for job " + ref.trim());
    }
    return job.lease();
  }

  private static String accepted(FencedOutcome.Accepted accepted) {
    return "ok accepted " + accepted.epoch().value() + " repeat=" + accepted.repeat();
  }

  static String refused(FencedOutcome.Refused refused) {
    FencedOffException e = new FencedOffException(refused);
    return "refused "
        + refused.getClass().getSimpleName()
        + " epoch="
        + refused.epoch().value()
        + " current="
        + e.currentEpoch().map(c -> Long.toString(c.value())).orElse("none");
  }
}
