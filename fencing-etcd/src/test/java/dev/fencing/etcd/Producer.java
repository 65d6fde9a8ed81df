package dev.fencing.etcd;

import dev.fencing.Acquisition;
import dev.fencing.CoordinationException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * One producer of the failover test: acquires a random resource, delivers with its epoch after the
 * acquisition and each renewal, and releases it (or now and then lets its lease run out), until
 * stopped. Producer {@code p0} now and then stalls past its lease before renewing. An ownership
 * given up or lost is delivered with once more, late, as a zombie would. Every outcome is counted.
 */
final class Producer implements Runnable {

  static final Duration LEASE = Duration.ofSeconds(2);

  private final ResourceOwnership client;
  private final String owner;
  private final List<String> resources;
  private final FencedReceiver receiver;
  private final Ledger ledger;
  private final SplittableRandom random;
  private final boolean stalls;
  private volatile boolean stopped;

  /** An ownership this producer no longer holds, to deliver with once more, late, like a zombie. */
  private Ownership zombie;

  private Instant zombieWakes = Instant.MAX;

  /** Counts per outcome name, shared by all producers. */
  final Map<String, LongAdder> counts;

  Producer(
      ResourceOwnership client,
      String owner,
      List<String> resources,
      FencedReceiver receiver,
      Ledger ledger,
      Map<String, LongAdder> counts,
      long seed) {
    this.client = client;
    this.owner = owner;
    this.resources = resources;
    this.receiver = receiver;
    this.ledger = ledger;
    this.counts = counts;
    this.random = new SplittableRandom(seed);
    this.stalls = owner.equals("p0");
  }

  static Map<String, LongAdder> newCounts() {
    return new ConcurrentHashMap<>();
  }

  void stop() {
    stopped = true;
  }

  @Override
  public void run() {
    while (!stopped) {
      if (zombie != null && Instant.now().isAfter(zombieWakes)) {
        boolean accepted = ledger.deliver(receiver, zombie, "{\"late\": true}");
        count(accepted ? "late delivery accepted" : "late delivery refused");
        zombie = null;
      }
      String resource = resources.get(random.nextInt(resources.size()));
      Instant started = Instant.now();
      Acquisition acquisition;
      try {
        acquisition = client.acquire(resource, owner, LEASE);
      } catch (CoordinationException e) {
        count("acquire failed (unreachable)");
        EtcdCluster.sleep(20);
        continue;
      }
      switch (acquisition) {
        case Acquisition.Held held -> {
          count("acquire held");
          EtcdCluster.sleep(10);
        }
        case Acquisition.Acquired acquired -> {
          count("acquired");
          hold(ledger.acquired(acquired.ownership(), started, Instant.now()), acquired.ownership());
        }
      }
    }
  }

  private void hold(Ledger.Tenure tenure, Ownership ownership) {
    ledger.deliver(receiver, ownership, "{\"by\": \"" + owner + "\"}");
    Ownership current = ownership;
    for (int renewals = random.nextInt(3); renewals > 0; renewals--) {
      if (stalls && random.nextInt(8) == 0) {
        count("stalled past the lease");
        EtcdCluster.sleep(LEASE.toMillis() + 700);
      }
      OwnershipRenewal renewal = client.renew(current, LEASE);
      if (renewal instanceof OwnershipRenewal.Lost lost) {
        tenure.endBy(Instant.now());
        count("renew lost " + lost.why());
        becomeZombie(current);
        return;
      }
      count("renewed");
      current = renewal.ownership();
      tenure.believedUntil = current.expiresAt();
      ledger.deliver(receiver, current, "{\"by\": \"" + owner + "\"}");
    }
    if (random.nextInt(20) == 0) {
      count("left to expire");
      becomeZombie(current);
      return;
    }
    tenure.endBy(Instant.now());
    if (random.nextInt(10) == 0) {
      becomeZombie(current);
    }
    try {
      FencedOutcome released = client.release(current);
      count("release " + released.getClass().getSimpleName());
    } catch (CoordinationException e) {
      count("release failed (unreachable)");
    }
  }

  private void becomeZombie(Ownership ownership) {
    zombie = ownership;
    zombieWakes = Instant.now().plusMillis(300);
  }

  private void count(String what) {
    counts.computeIfAbsent(what, k -> new LongAdder()).increment();
  }
}
