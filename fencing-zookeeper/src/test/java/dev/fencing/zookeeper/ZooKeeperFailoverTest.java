package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Acquisition;
import dev.fencing.CoordinationException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import dev.fencing.receiver.Receivers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Producers acquire, renew, deliver and release a handful of resources on a 3-server ensemble while
 * the leader is killed with SIGKILL and restarted, once ({@code -Dfencing.failover.kills=3}: three
 * times). No epoch is handed out twice, none goes backwards, and the receiver never accepts a stale
 * epoch.
 */
class ZooKeeperFailoverTest {

  private static final int PRODUCERS = 6;
  private static final int RESOURCES = 4;

  /** Leader kills: 1 in the short form of {@code verify}, 3 in the long form ({@code -Pfull}). */
  private static final int KILLS = Integer.getInteger("fencing.failover.kills", 1);

  private static final Duration LEASE = Duration.ofSeconds(1);

  /** One granted acquisition: when it was asked for and when it returned, on this JVM's clock. */
  record Granted(String resource, long epoch, long startedNanos, long returnedNanos) {}

  /** One delivery, in the order the receiver took them. */
  record Delivery(String resource, long epoch, boolean accepted) {}

  private final List<Granted> granted = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, List<Delivery>> deliveries = new ConcurrentHashMap<>();
  private final FencedReceiver receiver = Receivers.inMemory();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong renewals = new AtomicLong();
  private final AtomicLong lost = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();

  @Test
  void killingTheLeaderNeverDuplicatesOrReversesAnEpoch() throws Exception {
    long began = System.nanoTime();
    try (ZooKeeperProcesses ensemble = ZooKeeperProcesses.ensemble("failover", 3)) {
      List<Thread> producers = new ArrayList<>();
      for (int i = 0; i < PRODUCERS; i++) {
        String name = "producer-" + i;
        producers.add(Thread.ofPlatform().name(name).start(() -> produce(ensemble, name)));
      }
      List<String> kills = new ArrayList<>();
      for (int kill = 0; kill < KILLS; kill++) {
        ZooKeeperProcesses.sleep(5_000);
        int leader = awaitLeader(ensemble);
        long pid = ensemble.pid(leader);
        ensemble.kill(leader);
        long killed = System.nanoTime();
        awaitLeader(ensemble);
        long elected = System.nanoTime();
        ZooKeeperProcesses.sleep(1_000);
        ensemble.start(leader);
        ensemble.awaitServing(leader);
        kills.add(
            "server "
                + (leader + 1)
                + " (pid "
                + pid
                + "), new leader after "
                + (elected - killed) / 1_000_000
                + " ms");
      }
      ZooKeeperProcesses.sleep(5_000);
      running.set(false);
      for (Thread producer : producers) {
        producer.join(30_000);
      }
      System.out.printf(
          "failover: %d leader kills [%s]; %d acquisitions, %d renewals, %d lost, %d"
              + " coordination errors in %d s%n",
          KILLS,
          String.join("; ", kills),
          granted.size(),
          renewals.get(),
          lost.get(),
          failures.get(),
          (System.nanoTime() - began) / 1_000_000_000);
    }
    long duplicates = duplicates();
    long backwards = backwards();
    long staleAccepts = staleAccepts();
    long refused =
        deliveries.values().stream().flatMap(List::stream).filter(d -> !d.accepted()).count();
    System.out.printf(
        "failover: %d duplicate epochs, %d epochs backwards, %d stale accepts, %d stale"
            + " deliveries refused%n",
        duplicates, backwards, staleAccepts, refused);
    // enough traffic across each kill to matter: 600 for one kill on a loaded 2-core machine
    assertThat(granted).hasSizeGreaterThanOrEqualTo(200 * KILLS);
    assertThat(duplicates).isZero();
    assertThat(backwards).isZero();
    assertThat(staleAccepts).isZero();
  }

  private void produce(ZooKeeperProcesses ensemble, String name) {
    ResourceOwnership client = null;
    while (running.get()) {
      try {
        if (client == null) {
          client =
              ZooKeeperOwnership.builder(ensemble.connectString())
                  .sessionTimeout(Duration.ofSeconds(3))
                  .callTimeout(Duration.ofSeconds(2))
                  .build();
        }
        cycle(client, name);
      } catch (CoordinationException e) {
        failures.incrementAndGet();
        ZooKeeperProcesses.sleep(50);
      }
    }
    if (client != null) {
      client.close();
    }
  }

  private void cycle(ResourceOwnership client, String name) {
    String resource = "account-" + ThreadLocalRandom.current().nextInt(RESOURCES);
    long started = System.nanoTime();
    Acquisition acquisition = client.acquire(resource, name, LEASE);
    long returned = System.nanoTime();
    if (!(acquisition instanceof Acquisition.Acquired acquired)) {
      ZooKeeperProcesses.sleep(5);
      return;
    }
    Ownership owned = acquired.ownership();
    granted.add(new Granted(resource, owned.epoch().value(), started, returned));
    deliver(owned);
    for (int i = 0; i < 2; i++) {
      OwnershipRenewal renewal = client.renew(owned, LEASE);
      if (!renewal.isRenewed()) {
        lost.incrementAndGet();
        deliver(owned); // a zombie's late message: the receiver decides
        return;
      }
      renewals.incrementAndGet();
      owned = renewal.ownership();
      deliver(owned);
    }
    client.release(owned);
    if (ThreadLocalRandom.current().nextInt(4) == 0) {
      ZooKeeperProcesses.sleep(10);
      deliver(owned); // late, after the release: refused once a newer epoch has delivered
    }
  }

  private void deliver(Ownership owned) {
    List<Delivery> log = deliveries.computeIfAbsent(owned.resource(), key -> new ArrayList<>());
    synchronized (log) {
      FencedOutcome outcome = receiver.deliver(owned, "{\"epoch\": " + owned.epoch().value() + "}");
      log.add(new Delivery(owned.resource(), owned.epoch().value(), outcome.isAccepted()));
    }
  }

  private long duplicates() {
    Set<String> seen = new HashSet<>();
    return granted.stream().filter(g -> !seen.add(g.resource() + "@" + g.epoch())).count();
  }

  /** Acquisitions that started after another one of the same resource returned, but got less. */
  private long backwards() {
    long count = 0;
    Map<String, List<Granted>> byResource =
        granted.stream().collect(Collectors.groupingBy(Granted::resource));
    for (List<Granted> list : byResource.values()) {
      List<Granted> byReturn = new ArrayList<>(list);
      byReturn.sort(Comparator.comparingLong(Granted::returnedNanos));
      for (Granted later : list) {
        long highestBefore = 0;
        for (Granted earlier : byReturn) {
          if (earlier.returnedNanos() - later.startedNanos() >= 0) {
            break;
          }
          highestBefore = Math.max(highestBefore, earlier.epoch());
        }
        if (later.epoch() <= highestBefore) {
          count++;
        }
      }
    }
    return count;
  }

  /** Deliveries the receiver accepted though it had already accepted a larger epoch. */
  private long staleAccepts() {
    long count = 0;
    for (List<Delivery> log : deliveries.values()) {
      long highest = 0;
      for (Delivery delivery : log) {
        if (delivery.accepted() && delivery.epoch() < highest) {
          count++;
        }
        if (delivery.accepted()) {
          highest = Math.max(highest, delivery.epoch());
        }
      }
    }
    return count;
  }

  private static int awaitLeader(ZooKeeperProcesses ensemble) {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() < deadline) {
      var leader = ensemble.leader();
      if (leader.isPresent()) {
        return leader.get();
      }
      ZooKeeperProcesses.sleep(20);
    }
    throw new AssertionError("no leader within 30 s");
  }
}
