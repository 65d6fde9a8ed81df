package dev.fencing.etcd.internal;

import dev.fencing.CoordinationException;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Waits for etcd's answers within one operation's time budget and turns every failure into a {@link
 * CoordinationException} that names the endpoints, what was asked and what went wrong.
 */
@Singleton
final class Calls {

  private final Config config;

  @Inject
  Calls(Config config) {
    this.config = config;
  }

  /** Returns a deadline {@link Config#callTimeout()} from now. */
  Deadline deadline() {
    return Deadline.in(config.callTimeout());
  }

  /**
   * The end of one operation's time budget.
   *
   * @param nanos the end, in {@link System#nanoTime()}
   * @param budget the whole budget, for messages
   */
  record Deadline(long nanos, Duration budget) {
    /** Returns a deadline {@code budget} from now. */
    static Deadline in(Duration budget) {
      return new Deadline(System.nanoTime() + budget.toNanos(), budget);
    }

    long remainingNanos() {
      return Math.max(0, nanos - System.nanoTime());
    }
  }

  /**
   * Sends a request and waits for its answer until {@code deadline}.
   *
   * @param what what is asked, for the message ("grant a lease for acc-1")
   * @throws CoordinationException if etcd did not answer in time or answered with an error
   */
  <T> T await(String what, Supplier<CompletableFuture<T>> request, Deadline deadline) {
    CompletableFuture<T> future;
    try {
      future = request.get();
    } catch (RuntimeException e) {
      throw failed(what, e);
    }
    try {
      return future.get(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new CoordinationException(
          "etcd at "
              + config.endpointList()
              + " did not answer in time ("
              + deadline.budget()
              + ") to "
              + what,
          e);
    } catch (ExecutionException e) {
      throw failed(what, e.getCause() == null ? e : e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(true);
      throw new CoordinationException(
          "interrupted while waiting for etcd at " + config.endpointList() + " to " + what, e);
    }
  }

  /** Sends a request whose answer nobody waits for; a failure changes nothing. */
  static void bestEffort(Supplier<? extends CompletableFuture<?>> request) {
    try {
      request.get().exceptionally(e -> null);
    } catch (RuntimeException e) {
      // best effort: the lease it was about runs out by itself
    }
  }

  private CoordinationException failed(String what, Throwable cause) {
    return new CoordinationException(
        "etcd at " + config.endpointList() + " failed to " + what + ": " + cause, cause);
  }
}
