package dev.fencing.testkit.property;

import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.JavaProcess;
import dev.fencing.testkit.process.OwnershipBackend;
import dev.fencing.testkit.process.PuppetProducer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs {@link ProducerInterleaving}s on real producer processes ({@link PuppetProducer}), keeping
 * the processes between interleavings and giving every interleaving resource names of its own. A
 * crashed producer's replacement starts in the background, so its JVM start overlaps the steps
 * until that producer acts again; "leases run out" waits only what is left of its duration since
 * the last short lease was granted, renewed, or a producer was stalled or crashed.
 *
 * @since 0.1
 */
public final class ProducerRunner implements AutoCloseable {

  /**
   * What an interleaving did: its timeline and the invariants it broke.
   *
   * @param firstViolationIndex the index of the step the first violation was judged at, or -1
   * @param replies each step's reply, empty for a step that is no command
   */
  public record Run(
      ProducerInterleaving interleaving,
      List<String> timeline,
      List<String> violations,
      int firstViolationIndex,
      List<String> replies)
      implements Trial<ProducerInterleaving> {

    @Override
    public List<Step> steps() {
      return interleaving.steps();
    }

    /** Whether every invariant held. */
    @Override
    public boolean holds() {
      return violations.isEmpty();
    }

    /** The first invariant broken, by name, or empty. */
    @Override
    public String firstInvariant() {
      return violations.isEmpty() ? "" : name(violations.getFirst());
    }

    @Override
    public boolean breaks(String invariant) {
      return violations.stream().anyMatch(v -> name(v).equals(invariant));
    }

    @Override
    public int firstViolationStep() {
      return firstViolationIndex + 1;
    }

    /** The timeline and the violations, a line each. */
    @Override
    public String report() {
      return String.join("\n", timeline) + "\n" + String.join("\n", violations);
    }

    private static String name(String violation) {
      return violation.split(" ")[0];
    }
  }

  private static final AtomicInteger RUNS = new AtomicInteger();

  private final Class<? extends OwnershipBackend> backend;
  private final String address;
  private final PostgresFixture.Database database;
  private final String receiverSchema;
  private final Duration shortLease;
  private final Duration leasesRunOut;
  private final Duration longLease;
  private final Map<Integer, Future<JavaProcess>> processes = new HashMap<>();
  private final ExecutorService starter =
      Executors.newCachedThreadPool(
          Thread.ofPlatform().name("producer-starter").daemon().factory());
  private long lastTimeMark = System.nanoTime();
  private boolean warmedUp;
  private final Map<Integer, Integer> nextLine = new HashMap<>();
  private final String prefix = "s" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);

  /**
   * @param address what {@link OwnershipBackend#ownership(String, javax.sql.DataSource)} opens
   * @param receiverSchema where the receiver's tables live
   * @param shortLease the short lease
   * @param leasesRunOut how long {@link Step.LeasesRunOut} waits
   * @param longLease the long lease
   */
  public ProducerRunner(
      Class<? extends OwnershipBackend> backend,
      String address,
      PostgresFixture.Database database,
      String receiverSchema,
      Duration shortLease,
      Duration leasesRunOut,
      Duration longLease) {
    this.backend = backend;
    this.address = address;
    this.database = database;
    this.receiverSchema = receiverSchema;
    this.shortLease = shortLease;
    this.leasesRunOut = leasesRunOut;
    this.longLease = longLease;
  }

  /** Runs {@code interleaving} and judges every reply. */
  public Run run(ProducerInterleaving interleaving) {
    String run = prefix + "-" + RUNS.incrementAndGet();
    ProducerOracle oracle = new ProducerOracle(longLease);
    List<String> timeline = new ArrayList<>();
    Map<Integer, List<Pending>> deferred = new HashMap<>();
    for (int p = 0; p < interleaving.producers(); p++) {
      startIfAbsent(p);
    }
    for (int p = 0; p < interleaving.producers(); p++) {
      call(p, "reset");
    }
    lastTimeMark = System.nanoTime();
    List<Step> steps = interleaving.steps();
    String[] replies = new String[steps.size()];
    java.util.Arrays.fill(replies, "");
    for (int i = 0; i < steps.size(); i++) {
      Step step = steps.get(i);
      int p = step.actor();
      switch (step) {
        case Step.LeasesRunOut time -> {
          sleep(leasesRunOut.minusNanos(System.nanoTime() - lastTimeMark));
          timeline.add(i + ". leases run out");
        }
        case Step.Stall stall -> {
          if (!deferred.containsKey(p)) {
            process(p).freeze();
            lastTimeMark = System.nanoTime();
            deferred.put(p, new ArrayList<>());
            oracle.disturbed(p);
          }
          timeline.add(i + ". stall P" + p);
        }
        case Step.Resume resume -> {
          timeline.add(i + ". thaw P" + p);
          thaw(p, deferred, oracle, timeline, replies);
        }
        case Step.Crash crash -> {
          process(p).crash();
          lastTimeMark = System.nanoTime();
          processes.remove(p);
          nextLine.remove(p);
          deferred.remove(p);
          oracle.disturbed(p);
          // a fresh process owns nothing: no reset, and its start overlaps the next steps
          startIfAbsent(p);
          timeline.add(i + ". crash P" + p + " (it starts again, owning nothing)");
        }
        case Step.ProducerAction action -> {
          String command = command(action, run);
          process(p).send(command);
          if (deferred.containsKey(p)) {
            deferred.get(p).add(new Pending(i, action));
            timeline.add(i + ". P" + p + " " + command + " (stalled: waits)");
          } else {
            String reply = reply(p);
            replies[i] = reply;
            timeline.add(i + ". P" + p + " " + command + " -> " + reply);
            markGrant(action);
            oracle.judge(i, p, action, reply);
          }
        }
        case Step.WorkerAction worker ->
            throw new IllegalArgumentException("step must be a producer's, but was " + worker);
      }
    }
    for (int p : List.copyOf(deferred.keySet())) {
      timeline.add("end: thaw P" + p);
      thaw(p, deferred, oracle, timeline, replies);
    }
    List<ProducerOracle.Violation> violations = oracle.violations();
    return new Run(
        interleaving,
        timeline,
        violations.stream().map(Object::toString).toList(),
        violations.isEmpty() ? -1 : violations.getFirst().step(),
        List.of(replies));
  }

  private record Pending(int step, Step.ProducerAction what) {}

  private void thaw(
      int p,
      Map<Integer, List<Pending>> deferred,
      ProducerOracle oracle,
      List<String> timeline,
      String[] replies) {
    List<Pending> pending = deferred.remove(p);
    if (pending == null) {
      return;
    }
    process(p).thaw();
    for (Pending each : pending) {
      String reply = reply(p);
      replies[each.step()] = reply;
      timeline.add("   P" + p + " step " + each.step() + " -> " + reply);
      markGrant(each.what());
      oracle.judge(each.step(), p, each.what(), reply);
    }
  }

  private String command(Step.ProducerAction step, String run) {
    String resource = run + "-r" + step.resource();
    return switch (step) {
      case Step.Acquire a -> "acquire " + resource + " " + lease(a.shortLease());
      case Step.Extend e -> "renew " + resource + " " + lease(e.shortLease());
      case Step.Send s -> "send " + resource;
      case Step.Release r -> "release " + resource;
    };
  }

  private long lease(boolean shortOne) {
    return (shortOne ? shortLease : longLease).toMillis();
  }

  /** A short lease was granted or renewed now, at the latest: "leases run out" counts from it. */
  private void markGrant(Step.ProducerAction step) {
    if (ProducerOracle.shortLease(step)) {
      lastTimeMark = System.nanoTime();
    }
  }

  /** Starts producer {@code p}'s process in the background unless it has one. */
  private void startIfAbsent(int p) {
    processes.computeIfAbsent(p, index -> starter.submit(() -> start(index)));
  }

  private JavaProcess start(int index) {
    warmUp();
    JavaProcess started =
        JavaProcess.start(
            "producer-" + index,
            PuppetProducer.class,
            arguments(ProducerInterleaving.ownerName(index)));
    try {
      started.await(0, "ok ready"::equals, Duration.ofSeconds(60));
    } catch (RuntimeException e) {
      started.close();
      throw e;
    }
    return started;
  }

  private List<String> arguments(String owner) {
    return List.of(
        backend.getName(),
        address,
        database.jdbcUrl(),
        database.user(),
        database.password(),
        receiverSchema,
        owner);
  }

  /**
   * Once, before the first producer starts: a producer that takes no part in any interleaving
   * acquires, renews, sends for and releases a resource of its own, and is closed, so that its
   * classes are archived before any producer of an interleaving starts ({@link
   * JavaProcess#warmUp}).
   */
  private synchronized void warmUp() {
    if (warmedUp) {
      return;
    }
    warmedUp = true;
    String resource = prefix + "-warm-up";
    JavaProcess.warmUp(
        "producer-warm-up",
        List.of(),
        PuppetProducer.class,
        arguments("warm-up"),
        process -> {
          process.await(0, "ok ready"::equals, Duration.ofSeconds(60));
          int line = 1;
          for (String command :
              List.of(
                  "reset",
                  "acquire " + resource + " " + longLease.toMillis(),
                  "renew " + resource + " " + longLease.toMillis(),
                  "send " + resource,
                  "release " + resource)) {
            process.send(command);
            line = process.await(line, reply -> true, Duration.ofSeconds(60)) + 1;
            String reply = process.lines().get(line - 1);
            if (reply.startsWith("error ")) {
              throw new IllegalStateException(
                  "the warm-up producer answered '" + command + "' with: " + reply);
            }
          }
        });
  }

  private JavaProcess process(int p) {
    startIfAbsent(p);
    Future<JavaProcess> pending = processes.get(p);
    JavaProcess process;
    try {
      process = pending.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted starting producer " + p, e);
    } catch (ExecutionException e) {
      processes.remove(p);
      throw new InterleavingAbortedException(
          "producer " + p + " did not start: " + e.getCause(), e.getCause());
    }
    nextLine.putIfAbsent(p, 1);
    return process;
  }

  private String call(int p, String command) {
    process(p).send(command);
    return reply(p);
  }

  /** Returns producer {@code p}'s next reply: every command gets exactly one line. */
  private String reply(int p) {
    JavaProcess process = process(p);
    int index = process.await(nextLine.get(p), line -> true, Duration.ofSeconds(60));
    nextLine.put(p, index + 1);
    String reply = process.lines().get(index);
    if (reply.startsWith("error ")) {
      throw new InterleavingAbortedException(
          process.name() + " failed: " + reply, new IllegalStateException(reply));
    }
    return reply;
  }

  private static void sleep(Duration duration) {
    if (duration.isNegative() || duration.isZero()) {
      return;
    }
    try {
      Thread.sleep(duration.toMillis() + 1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    for (Future<JavaProcess> pending : processes.values()) {
      try {
        pending.get().close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException ignored) {
        // it never started: nothing to end
      }
    }
    processes.clear();
    starter.shutdownNow();
  }
}
