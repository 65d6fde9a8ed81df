package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.OutcomeUnknownException;
import dev.fencing.StoreUnavailableException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What the queue's tests across a failover share: retrying until it works, and the checks after.
 */
final class AcrossFailover {

  private AcrossFailover() {}

  /**
   * Calls {@code call} until it returns, for at most {@code within}, adding each failure the
   * library calls transient to {@code failures} (with the time since {@code start}, a {@link
   * System#nanoTime()}); any other failure fails at once.
   *
   * @throws AssertionError if it has not returned within {@code within}, listing the failures
   */
  static <T> T untilItWorks(long start, Duration within, List<String> failures, Supplier<T> call) {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      try {
        return call.get();
      } catch (StoreUnavailableException | OutcomeUnknownException e) {
        failures.add("+" + millisSince(start) + " ms " + describe(e));
        if (System.nanoTime() > deadline) {
          throw new AssertionError("no success within " + within + "; failures: " + failures, e);
        }
        OsProcesses.pause(Duration.ofMillis(250));
      }
    }
  }

  /** The exception's class and message, and the SQLSTATE of every SQL exception under it. */
  static String describe(Throwable e) {
    StringBuilder text = new StringBuilder(e.getClass().getSimpleName()).append(": ");
    text.append(e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse(""));
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql) {
        text.append(" | ")
            .append(sql.getClass().getSimpleName())
            .append('[')
            .append(sql.getSQLState())
            .append("] ")
            .append(
                sql.getMessage() == null ? "" : sql.getMessage().lines().findFirst().orElse(""));
      }
    }
    return text.toString();
  }

  /**
   * Claims and completes every claimable job of {@code queue} ({@code "q"}) and returns how many.
   */
  static int drain(FencedQueue queue, Duration lease) {
    int drained = 0;
    for (Optional<Job> job = queue.claim("q", "rest", lease);
        job.isPresent();
        job = queue.claim("q", "rest", lease)) {
      queue.complete(job.get().lease(), "\"done\"");
      drained++;
    }
    return drained;
  }

  /**
   * The promotion started a new timeline, so the claim {@code after} it is in a later failover
   * generation (docs/HA.md), above every epoch handed out {@code before} it.
   */
  static void assertNewGeneration(PatroniCluster cluster, String failover, Job before, Job after) {
    assertThat(after.id()).isNotEqualTo(before.id());
    assertThat(after.lease().epoch().value() >>> 32)
        .as("the generation of %s after %s", after.lease().epoch(), failover)
        .isEqualTo(cluster.timeline() - 1)
        .isPositive();
    assertThat(after.lease().epoch()).isGreaterThan(before.lease().epoch());
  }

  /** Milliseconds since {@code start}, a {@link System#nanoTime()}. */
  static long millisSince(long start) {
    return (System.nanoTime() - start) / 1_000_000;
  }
}
