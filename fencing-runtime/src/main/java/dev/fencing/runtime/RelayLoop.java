package dev.fencing.runtime;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

  private static final Logger LOG = LoggerFactory.getLogger(Pipeline.LOGGER);
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

  /** What is counted, in the order of {@link RelayStats}. */
  enum Count {
    ROUNDS,
    SENT,
    REFUSED,
    FAILURES
  }

  private final Tally<Count> tally = new Tally<>(Count.class);

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
        tally.increment(Count.FAILURES);
        failed = true;
        LOG.warn("relay of destination {} failed; it is tried again", route.destination(), e);
        continue;
      }
      tally.add(Count.SENT, relayed.size());
      tally.add(
          Count.REFUSED,
          relayed.stream().filter(r -> r.outcome() instanceof FencedOutcome.Refused).count());
      moreLeft |= relayed.size() == max;
    }
    tally.increment(Count.ROUNDS);
    return new Round(moreLeft, failed);
  }

  long count(Count name) {
    return tally.get(name);
  }
}
