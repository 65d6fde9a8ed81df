package dev.fencing.runtime;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Relays the outbox in the runtime: each round sends, for each destination, up to {@code max}
 * undelivered messages through the outbox's own relay (which locks each message, sends it and
 * records its outcome, so several relays never send one message at once and a resend after a crash
 * carries the same epoch). Rounds follow one another while a destination had more, then one every
 * {@code every}. A round that fails (the sender threw, the store was unreachable) is logged and
 * counted, and the next waits, from {@code every} doubling up to {@link #MAX_BACKOFF}; the message
 * stays undelivered and is sent again. Once stopped, it runs one last round, so that what the last
 * commits wrote leaves with them.
 */
final class RelayLoop extends Loop {

  private static final System.Logger LOG = System.getLogger(Pipeline.LOGGER);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /** One destination and the call that relays it. */
  record Route(String destination, Call call) {}

  /** Relays up to {@code max} messages of one destination. */
  @FunctionalInterface
  interface Call {
    List<FencedOutbox.Relayed> relay(int max);
  }

  private final List<Route> routes;
  private final Duration every;
  private final int max;
  final AtomicLong rounds = new AtomicLong();
  final AtomicLong sent = new AtomicLong();
  final AtomicLong refused = new AtomicLong();
  final AtomicLong failures = new AtomicLong();

  RelayLoop(List<Route> routes, Duration every, int max) {
    this.routes = List.copyOf(routes);
    this.every = every;
    this.max = max;
  }

  @Override
  public void run() {
    Duration backoff = every;
    while (running()) {
      Round round = round();
      if (round.failed()) {
        pause(backoff.toNanos());
        backoff = doubled(backoff, MAX_BACKOFF.compareTo(every) > 0 ? MAX_BACKOFF : every);
      } else {
        backoff = every;
        if (!round.moreLeft()) {
          pause(every.toNanos());
        }
      }
    }
    round();
  }

  private record Round(boolean moreLeft, boolean failed) {}

  private Round round() {
    boolean moreLeft = false;
    boolean failed = false;
    for (Route route : routes) {
      List<FencedOutbox.Relayed> relayed;
      try {
        relayed = route.call().relay(max);
      } catch (RuntimeException e) {
        failures.incrementAndGet();
        failed = true;
        LOG.log(
            Level.WARNING,
            "relay of destination " + route.destination() + " failed; it is tried again",
            e);
        continue;
      }
      sent.addAndGet(relayed.size());
      refused.addAndGet(
          relayed.stream().filter(r -> r.outcome() instanceof FencedOutcome.Refused).count());
      moreLeft |= relayed.size() == max;
    }
    rounds.incrementAndGet();
    return new Round(moreLeft, failed);
  }
}
