package dev.fencing.ha;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.Replication;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * What {@link SynchronousModeCostTest} runs and measures: its settings, one measurement of a mode
 * at a number of client threads, and what the library said about replication around it.
 */
final class SynchronousModeCost {

  private static final Duration LEASE = Duration.ofMinutes(5);

  /** How long all threads of one phase may take before the run fails. */
  private static final Duration PHASE_LIMIT = Duration.ofMinutes(10);

  private SynchronousModeCost() {}

  /** The two modes compared, in the order each round runs them. */
  enum Mode {
    ASYNC,
    SYNC;

    /** How the report and schema names call it. */
    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * The size of a run.
   *
   * @param cycles enqueues, and claim+complete cycles, per measurement (all threads together)
   * @param warmup the same per measurement in the unmeasured round that runs first; 0 for none
   * @param rounds measured rounds; each runs every thread count in async mode, then in sync mode
   * @param threads the numbers of client threads, each measured in every round and mode
   * @param fsync whether the cluster's nodes run with {@code fsync} on while measuring
   * @param report the page whose section to write, if any
   */
  record Settings(
      int cycles,
      int warmup,
      int rounds,
      List<Integer> threads,
      boolean fsync,
      Optional<Path> report) {

    static final String PREFIX = "fencing.synccost.";

    /**
     * Reads {@code fencing.synccost.*} through {@code property} (null when unset): {@code cycles}
     * (100), {@code warmup} (20), {@code rounds} (1), {@code threads} (a list, {@code 1}), {@code
     * fsync} ({@code on} or {@code off}: off, as the fixture starts), {@code report} (none).
     *
     * @throws IllegalArgumentException naming the property and its value if one is malformed or out
     *     of range
     */
    static Settings from(UnaryOperator<String> property) {
      String threadsText = orElse(property, "threads", "1");
      List<Integer> threads = new ArrayList<>();
      for (String part : threadsText.split(",", -1)) {
        threads.add(integer(PREFIX + "threads", part.strip(), 1, 64));
      }
      String fsync = orElse(property, "fsync", "off");
      if (!fsync.equals("on") && !fsync.equals("off")) {
        throw new IllegalArgumentException(
            PREFIX + "fsync must be on or off, but was " + Validate.quote(fsync));
      }
      return new Settings(
          integer(PREFIX + "cycles", orElse(property, "cycles", "100"), 1, 1_000_000),
          integer(PREFIX + "warmup", orElse(property, "warmup", "20"), 0, 1_000_000),
          integer(PREFIX + "rounds", orElse(property, "rounds", "1"), 1, 100),
          List.copyOf(threads),
          fsync.equals("on"),
          Optional.ofNullable(property.apply(PREFIX + "report")).map(Path::of));
    }

    /** The {@code -D} options that give these settings (the report excepted). */
    String options() {
      return "-D"
          + PREFIX
          + "cycles="
          + cycles
          + " -D"
          + PREFIX
          + "warmup="
          + warmup
          + " -D"
          + PREFIX
          + "rounds="
          + rounds
          + " -D"
          + PREFIX
          + "threads="
          + String.join(",", threads.stream().map(String::valueOf).toList())
          + " -D"
          + PREFIX
          + "fsync="
          + (fsync ? "on" : "off");
    }

    private static String orElse(UnaryOperator<String> property, String name, String fallback) {
      String value = property.apply(PREFIX + name);
      return value == null ? fallback : value;
    }

    private static int integer(String name, String text, int min, int max) {
      int value;
      try {
        value = Integer.parseInt(text.strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            name + " must be a whole number, but was " + Validate.quote(text), e);
      }
      return Validate.between(name, value, min, max);
    }
  }

  /**
   * One mode at one number of threads: {@code cycles} single enqueues, then as many cycles of
   * claiming one job and completing it, each phase timed from the start of all threads to the end
   * of the last.
   *
   * @param round 0 for the warm-up
   * @param claimNanos each successful claim's latency, sorted
   * @param completeNanos each completion's latency, sorted
   * @param emptyClaims claims that found no job (and were tried again)
   * @param completed the rows of the measurement's queue that are completed after it
   * @param rows the rows of the measurement's queue after it
   */
  record Measurement(
      Mode mode,
      int round,
      int threads,
      int cycles,
      long enqueueNanos,
      long cycleNanos,
      long[] claimNanos,
      long[] completeNanos,
      int emptyClaims,
      long completed,
      long rows) {

    double enqueuesPerSecond() {
      return cycles * 1e9 / enqueueNanos;
    }

    double cyclesPerSecond() {
      return cycles * 1e9 / cycleNanos;
    }

    /** The nearest-rank percentile {@code p} (0 to 1) of the claims' latencies, in ms. */
    double claimMillis(double p) {
      return rank(claimNanos, p) / 1e6;
    }

    /** The nearest-rank percentile {@code p} (0 to 1) of the completions' latencies, in ms. */
    double completeMillis(double p) {
      return rank(completeNanos, p) / 1e6;
    }

    private static long rank(long[] sorted, double p) {
      return sorted[Math.max(0, (int) Math.ceil(p * sorted.length) - 1)];
    }
  }

  /**
   * What {@link dev.fencing.postgres.PostgresFencing#replication()} said before and after one
   * mode's measurements in one round, and the synchronous standby the cluster named (empty in async
   * mode).
   */
  record Check(Mode mode, int round, Replication before, Replication after, String standby) {}

  /**
   * Measures {@code mode} at {@code threads} threads on the empty queue {@code queueName}; {@code
   * rows} counts the queue's rows afterwards as {completed, all}.
   */
  static Measurement measure(
      Mode mode,
      int round,
      FencedQueue queue,
      String queueName,
      int threads,
      int cycles,
      Supplier<long[]> rows) {
    long enqueueNanos = inParallel(threads, cycles, i -> queue.enqueue(queueName, "{}"));
    long[] claims = new long[cycles];
    long[] completions = new long[cycles];
    AtomicInteger empty = new AtomicInteger();
    long cycleNanos =
        inParallel(
            threads,
            cycles,
            i -> {
              String owner = Thread.currentThread().getName();
              while (true) {
                long start = System.nanoTime();
                Optional<Job> job = queue.claim(queueName, owner, LEASE);
                long claimed = System.nanoTime();
                if (job.isPresent()) {
                  queue.complete(job.get().lease(), "\"done\"");
                  claims[i] = claimed - start;
                  completions[i] = System.nanoTime() - claimed;
                  return;
                }
                if (empty.incrementAndGet() > cycles) {
                  throw new AssertionError(
                      "more than " + cycles + " claims on " + queueName + " found no job");
                }
              }
            });
    Arrays.sort(claims);
    Arrays.sort(completions);
    long[] counted = rows.get();
    return new Measurement(
        mode,
        round,
        threads,
        cycles,
        enqueueNanos,
        cycleNanos,
        claims,
        completions,
        empty.get(),
        counted[0],
        counted[1]);
  }

  /**
   * Runs {@code unit} for 0 to {@code units - 1}, each once, on {@code threads} platform threads
   * that take the next index until none is left, and returns the nanoseconds from their start to
   * the end of the last.
   *
   * @throws AssertionError with the first failure of any thread, or if they took longer than {@link
   *     #PHASE_LIMIT}
   */
  private static long inParallel(int threads, int units, IntConsumer unit) {
    AtomicInteger next = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      started.add(
          Thread.ofPlatform()
              .name("synccost-" + t)
              .start(
                  () -> {
                    try {
                      go.await();
                      for (int i = next.getAndIncrement();
                          i < units && failures.isEmpty();
                          i = next.getAndIncrement()) {
                        unit.accept(i);
                      }
                    } catch (Throwable e) {
                      failures.add(e);
                    }
                  }));
    }
    long start = System.nanoTime();
    go.countDown();
    long deadline = start + PHASE_LIMIT.toNanos();
    try {
      for (Thread thread : started) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !thread.join(Duration.ofNanos(left))) {
          started.forEach(Thread::interrupt);
          throw new AssertionError("the threads did not finish within " + PHASE_LIMIT);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      started.forEach(Thread::interrupt);
      throw new AssertionError("interrupted", e);
    }
    long elapsed = System.nanoTime() - start;
    if (!failures.isEmpty()) {
      throw new AssertionError(
          "a client thread failed: " + failures.getFirst(), failures.getFirst());
    }
    return elapsed;
  }
}
