package dev.fencing.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedReceiver;
import dev.fencing.ResourceOwnership;
import dev.fencing.receiver.Receivers;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * Producers acquire, renew and release a handful of resources on a 3-member cluster while its
 * leader is killed with SIGKILL and restarted, once ({@code -Dfencing.failover.kills=3}: three
 * times). Afterwards no two acquisitions of a resource share an epoch, none that started after
 * another returned has a smaller one, no acquisition returned while the previous holder could still
 * believe it held the resource, and the receiver never accepted an epoch older than one it had
 * accepted.
 */
class EtcdFailoverTest {

  private static final int PRODUCERS = 4;

  /** Leader kills: 1 in the short form of {@code verify}, 3 in the long form ({@code -Pfull}). */
  private static final int LEADER_KILLS = Integer.getInteger("fencing.failover.kills", 1);

  /**
   * Acquisitions the run waits for after its kills: 300 a kill (1,000 took 70 s on a loaded CI).
   */
  private static final int MIN_ACQUISITIONS = 300 * LEADER_KILLS;

  private static final Duration MAX_RUN = Duration.ofSeconds(70);

  @Test
  void epochsStayUniqueAndIncreasingWhileTheLeaderIsKilled() throws Exception {
    Instant begun = Instant.now();
    Ledger ledger = new Ledger();
    FencedReceiver receiver = Receivers.inMemory();
    Map<String, LongAdder> counts = Producer.newCounts();
    List<String> resources = List.of("fo-a", "fo-b", "fo-c", "fo-d");
    List<String> phases = new ArrayList<>();
    List<ResourceOwnership> clients = new ArrayList<>();
    List<Producer> producers = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    try (EtcdCluster cluster = EtcdCluster.start(3);
        Client admin = Client.builder().endpoints(cluster.endpoints()).build()) {
      try {
        for (int i = 0; i < PRODUCERS; i++) {
          ResourceOwnership client =
              EtcdOwnership.builder(cluster.endpoints()).callTimeout(Duration.ofSeconds(2)).build();
          clients.add(client);
          Producer producer =
              new Producer(client, "p" + i, resources, receiver, ledger, counts, 42 + i);
          producers.add(producer);
          Thread thread = new Thread(producer, "producer-" + i);
          threads.add(thread);
          thread.start();
        }
        EtcdCluster.sleep(3_000);
        phases.add("before the first kill: " + ledger.acquisitions() + " acquisitions");
        for (int kill = 1; kill <= LEADER_KILLS; kill++) {
          int leader = awaitLeader(cluster, admin);
          int before = ledger.acquisitions();
          cluster.kill(leader);
          EtcdCluster.sleep(2_000);
          int whileDown = ledger.acquisitions() - before;
          cluster.startMember(leader);
          cluster.awaitUp(Duration.ofSeconds(20));
          EtcdCluster.sleep(3_000);
          phases.add(
              "kill "
                  + kill
                  + " of leader m"
                  + leader
                  + ": "
                  + whileDown
                  + " acquisitions in the 2 s it was down, "
                  + (ledger.acquisitions() - before)
                  + " until 3 s after it rejoined");
        }
        Instant cap = begun.plus(MAX_RUN);
        while (ledger.acquisitions() < MIN_ACQUISITIONS && Instant.now().isBefore(cap)) {
          EtcdCluster.sleep(100);
        }
      } finally {
        producers.forEach(Producer::stop);
        for (Thread thread : threads) {
          thread.join(10_000);
        }
        clients.forEach(ResourceOwnership::close);
      }
    }

    List<String> duplicates = ledger.duplicateEpochs();
    List<String> backwards = ledger.backwardEpochs();
    List<String> overlaps = ledger.overlaps();
    System.out.printf(
        "EtcdFailoverTest: %d producers, %d resources, %d leader kills, %.1f s%n",
        PRODUCERS,
        resources.size(),
        LEADER_KILLS,
        Duration.between(begun, Instant.now()).toMillis() / 1000.0);
    phases.forEach(p -> System.out.println("  " + p));
    new TreeMap<>(counts).forEach((k, v) -> System.out.printf("  %-32s %6d%n", k, v.sum()));
    System.out.printf(
        "  acquisitions %d, duplicate epochs %d, epochs backwards %d, overlapping holders %d%n",
        ledger.acquisitions(), duplicates.size(), backwards.size(), overlaps.size());
    System.out.printf(
        "  receiver: accepted %d, refused %d, stale accepts %d%n",
        ledger.accepted.sum(), ledger.refused.sum(), ledger.staleAccepts.sum());

    assertThat(ledger.acquisitions()).isGreaterThanOrEqualTo(MIN_ACQUISITIONS);
    assertThat(duplicates).isEmpty();
    assertThat(backwards).isEmpty();
    assertThat(overlaps).isEmpty();
    assertThat(ledger.staleAccepts.sum()).isZero();
    assertThat(phases).hasSize(LEADER_KILLS + 1);
  }

  private static int awaitLeader(EtcdCluster cluster, Client admin) {
    Instant deadline = Instant.now().plusSeconds(10);
    while (Instant.now().isBefore(deadline)) {
      int leader = cluster.leader(admin);
      if (leader >= 0) {
        return leader;
      }
      EtcdCluster.sleep(100);
    }
    throw new AssertionError("no leader within 10 s");
  }
}
