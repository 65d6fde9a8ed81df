package dev.fencing.testkit;

import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.Lease;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The main class of a worker process, driven one line at a time on standard input. It keeps its
 * leases the way a real worker does: a stalled one wakes up still believing it owns its jobs.
 *
 * <p>Arguments: backend class, JDBC URL, user, password, schema. Commands and replies (one line
 * each; a reply starts with {@code ok}, {@code refused} or {@code error}):
 *
 * <pre>
 * ping                             ok pong PID
 * claim QUEUE OWNER LEASE_MS       ok claimed ID EPOCH | ok none
 * claimbatch QUEUE OWNER LEASE_MS N ok claimed ID:EPOCH,ID:EPOCH,... | ok none
 * deliver ID JSON                  ok accepted EPOCH repeat=B | refused TYPE epoch=E current=C
 * complete ID JSON                 ok accepted EPOCH repeat=B | refused TYPE epoch=E current=C
 * renew ID LEASE_MS                ok renewed EPOCH | refused ...
 * fail ID DELAY_MS ERROR           ok accepted EPOCH repeat=B | refused ...
 * release ID                       ok accepted EPOCH repeat=B | refused ...
 * drain QUEUE OWNER LEASE_MS N     ok drained ID:EPOCH,... (claims N at a time and completes each,
 *                                  until nothing is claimable)
 * quit
 * </pre>
 */
public final class PuppetWorker {

  private final FencedQueue queue;
  private final FencedReceiver receiver;
  private final Map<Long, Lease> leases = new HashMap<>();

  private PuppetWorker(FencedQueue queue, FencedReceiver receiver) {
    this.queue = queue;
    this.receiver = receiver;
  }

  /** Runs the command loop until {@code quit} or the end of standard input. */
  public static void main(String[] args) throws IOException {
    if (args.length != 5) {
      System.err.println("usage: PuppetWorker BACKEND_CLASS JDBC_URL USER PASSWORD SCHEMA");
      System.exit(2);
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(args[1]);
    if (!args[2].isEmpty()) {
      ds.setUser(args[2]);
    }
    if (!args[3].isEmpty()) {
      ds.setPassword(args[3]);
    }
    FencingBackend backend = FencingBackend.load(args[0]);
    PuppetWorker worker =
        new PuppetWorker(backend.queue(ds, args[4]), backend.receiver(ds, args[4]));
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    out.println("ok ready " + ProcessHandle.current().pid());
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (line.equals("quit")) {
        return;
      }
      out.println(worker.execute(line));
    }
  }

  String execute(String line) {
    String[] words = line.split(" ", 2);
    String rest = words.length > 1 ? words[1] : "";
    try {
      return switch (words[0]) {
        case "ping" -> "ok pong " + ProcessHandle.current().pid();
        case "claim" -> claim(rest.split(" "), 1);
        case "claimbatch" -> claim(rest.split(" "), Integer.parseInt(rest.split(" ")[3]));
        case "deliver" -> deliver(rest);
        case "complete" -> complete(rest);
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

  private String claim(String[] args, int batchSize) {
    Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
    List<Job> jobs =
        batchSize == 1
            ? queue.claim(args[0], args[1], lease).map(List::of).orElse(List.of())
            : queue.claimBatch(args[0], args[1], lease, batchSize);
    if (jobs.isEmpty()) {
      return "ok none";
    }
    jobs.forEach(j -> leases.put(j.id(), j.lease()));
    if (batchSize == 1) {
      return "ok claimed " + jobs.getFirst().id() + " " + jobs.getFirst().epoch().value();
    }
    return "ok claimed "
        + jobs.stream().map(j -> j.id() + ":" + j.epoch().value()).collect(Collectors.joining(","));
  }

  private String drain(String[] args) {
    Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
    int batchSize = Integer.parseInt(args[3]);
    StringBuilder done = new StringBuilder();
    for (List<Job> jobs = queue.claimBatch(args[0], args[1], lease, batchSize);
        !jobs.isEmpty();
        jobs = queue.claimBatch(args[0], args[1], lease, batchSize)) {
      for (Job job : jobs) {
        queue.complete(job.lease(), "{\"by\": \"" + args[1] + "\"}");
        done.append(done.isEmpty() ? "" : ",")
            .append(job.id())
            .append(':')
            .append(job.epoch().value());
      }
    }
    return "ok drained " + done;
  }

  private String deliver(String rest) {
    String[] args = rest.split(" ", 2);
    Lease lease = lease(args[0]);
    FencedOutcome outcome = receiver.deliver(lease.key(), lease.epoch(), args[1]);
    return switch (outcome) {
      case FencedOutcome.Accepted a -> accepted(a);
      case FencedOutcome.Refused r -> refused(r);
    };
  }

  private String complete(String rest) {
    String[] args = rest.split(" ", 2);
    return accepted(queue.complete(lease(args[0]), args[1]));
  }

  private String renew(String[] args) {
    Lease renewed = queue.renew(lease(args[0]), Duration.ofMillis(Long.parseLong(args[1])));
    leases.put(renewed.jobId(), renewed);
    return "ok renewed " + renewed.epoch().value();
  }

  private String fail(String[] args) {
    return accepted(
        queue.fail(lease(args[0]), args[2], Duration.ofMillis(Long.parseLong(args[1]))));
  }

  private Lease lease(String jobId) {
    return Optional.ofNullable(leases.get(Long.parseLong(jobId.trim())))
        .orElseThrow(() -> new IllegalArgumentException("no lease held for job " + jobId));
  }

  private static String accepted(FencedOutcome.Accepted accepted) {
    return "ok accepted " + accepted.epoch().value() + " repeat=" + accepted.repeat();
  }

  static String refused(FencedOutcome.Refused refused) {
    Epoch current =
        switch (refused) {
          case FencedOutcome.Superseded s -> s.current();
          case FencedOutcome.NotOwner n -> n.current();
          case FencedOutcome.LeaseExpired e -> e.epoch();
          case FencedOutcome.AlreadyFinished f -> f.epoch();
        };
    return "refused "
        + refused.getClass().getSimpleName()
        + " epoch="
        + refused.epoch().value()
        + " current="
        + (current == null ? "none" : current.value());
  }
}
