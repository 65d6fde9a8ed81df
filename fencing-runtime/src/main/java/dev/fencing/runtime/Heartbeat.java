package dev.fencing.runtime;

import dev.fencing.FencedOffException;
import dev.fencing.Lease;
import dev.fencing.Renewal;
import dev.fencing.internal.Validate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Every {@code heartbeatInterval}, renews the leases in flight (waiting, running or committing)
 * that were taken or last renewed more than half an interval ago, one statement per batch; and
 * cancels any claim whose lease could not be renewed before it ran out by this worker's monotonic
 * clock, which runs no faster than the database's. A lease is thus renewed before less than {@code
 * leaseLength - 1.5 × heartbeatInterval} of it is left (half the lease by default, more than the
 * default {@code minLeaseLeft}). Leases younger than that are left alone: under load most claims
 * end within milliseconds, and renewing them only competes with their commits for the same rows.
 */
final class Heartbeat extends Loop {

  static final String RAN_OUT =
      "the lease could not be renewed before it ran out (by this worker's clock)";

  private final Pipeline p;

  Heartbeat(Pipeline pipeline) {
    this.p = pipeline;
  }

  @Override
  public void run() {
    long interval = p.settings.heartbeatInterval().toNanos();
    long tick =
        Math.max(
            TimeUnit.MILLISECONDS.toNanos(1),
            Math.min(interval / 4, TimeUnit.MILLISECONDS.toNanos(50)));
    long next = System.nanoTime() + interval;
    while (running()) {
      pause(tick);
      long now = System.nanoTime();
      cancelRunOut(now);
      if (now - next >= 0) {
        renewAll(now);
        next = now + interval;
      }
    }
  }

  private void cancelRunOut(long now) {
    for (InFlight claim : p.inFlight.values()) {
      if (!claim.isResolved() && !claim.isCancelled() && claim.nanosLeft(now) <= 0) {
        claim.cancel(RAN_OUT, null, false);
      }
    }
  }

  private void renewAll(long now) {
    long leaseNanos = p.settings.leaseLength().toNanos();
    long renewBelow = leaseNanos - p.settings.heartbeatInterval().toNanos() / 2;
    List<InFlight> live = new ArrayList<>();
    for (InFlight claim : p.inFlight.values()) {
      if (!claim.isResolved() && !claim.isCancelled() && claim.nanosLeft(now) < renewBelow) {
        live.add(claim);
      }
    }
    for (int from = 0; from < live.size(); from += Validate.MAX_BATCH) {
      List<InFlight> chunk = live.subList(from, Math.min(live.size(), from + Validate.MAX_BATCH));
      List<Lease> leases = new ArrayList<>(chunk.size());
      for (InFlight claim : chunk) {
        leases.add(claim.lease());
      }
      long sent = System.nanoTime();
      List<Renewal> renewals;
      try {
        renewals = p.queue.renewAll(leases, p.settings.leaseLength());
        p.counters.increment(Counters.Count.RENEW_STATEMENTS);
        p.succeeded();
      } catch (RuntimeException e) {
        // nothing changed; the deadlines keep running and cancelRunOut acts if this goes on
        p.counters.increment(Counters.Count.STORE_ERRORS);
        p.renewalFailed(e);
        continue;
      }
      for (int i = 0; i < chunk.size(); i++) {
        InFlight claim = chunk.get(i);
        switch (renewals.get(i)) {
          case Renewal.Renewed r -> {
            claim.renewed(r.lease(), sent, leaseNanos);
            p.counters.increment(Counters.Count.RENEWED);
          }
          case Renewal.Lost l ->
              claim.cancel(
                  "the lease was lost: " + new FencedOffException(l.refusal()).getMessage(),
                  l.refusal(),
                  false);
        }
      }
    }
  }
}
