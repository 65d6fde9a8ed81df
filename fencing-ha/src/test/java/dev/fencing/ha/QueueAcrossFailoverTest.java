package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The queue on a multi-host URL ({@code targetServerType=primary}) through a HikariCP pool as
 * docs/HA.md advises ({@link AdvisedPool}), across a failover: the leader is killed (or switched
 * over) between a claim and its commit, and the same handle claims and commits again once the
 * replica is promoted. What the library throws meanwhile is printed, with each failure's SQLSTATEs,
 * for the failover work of issue 21. The listening connection follows the primary too: after the
 * failover an enqueue wakes a waiter.
 */
@ExtendWith(SharedPatroniCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class QueueAcrossFailoverTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Duration LEASE = Duration.ofMinutes(5);
  private static final int JOBS = 6;

  @Test
  @Order(1)
  void claimsAndCommitsCarryOnAfterASwitchover(PatroniCluster cluster) {
    carriesOnAcross("switchover", cluster, PatroniCluster::switchover);
  }

  @Test
  @Order(2)
  void claimsAndCommitsCarryOnAfterTheLeaderIsKilled(PatroniCluster cluster) {
    int killed = carriesOnAcross("kill -9 of the leader", cluster, PatroniCluster::killLeader);
    cluster.startNode(killed); // it rejoins while other tests run; the next one heals
  }

  /** Returns what {@code act} returned. */
  private static int carriesOnAcross(
      String failover,
      PatroniCluster cluster,
      java.util.function.ToIntFunction<PatroniCluster> act) {
    cluster.heal(WAIT);
    PostgresFixture.Database db =
        new PostgresFixture.Database(
            cluster.jdbcUrl(), cluster.user(), cluster.password(), "patroni");
    DataSource pool = AdvisedPool.of(cluster, 4);
    FencedQueue queue = PostgresFencing.builder(pool).schema(db.freshSchema("ha")).build().queue();
    for (int i = 0; i < JOBS; i++) {
      queue.enqueue("q", "{\"n\": " + i + "}");
    }
    Job before = queue.claim("q", "before", LEASE).orElseThrow();
    awaitWork(queue, Duration.ofMillis(10)); // the listening connection now runs on the old leader
    cluster.awaitReplicated(WAIT);

    long start = System.nanoTime();
    int acted = act.applyAsInt(cluster);
    List<String> failures = new ArrayList<>();
    Job after =
        AcrossFailover.untilItWorks(start, WAIT, failures, () -> queue.claim("q", "after", LEASE))
            .orElseThrow();
    long claimedAfter = AcrossFailover.millisSince(start);
    FencedOutcome.Accepted committed =
        AcrossFailover.untilItWorks(
            start, WAIT, failures, () -> queue.complete(before.lease(), "\"done before\""));
    queue.complete(after.lease(), "\"done after\"");
    int rest = AcrossFailover.drain(queue, LEASE);

    // the listening connection followed the primary: an enqueue there wakes a waiter
    int quiet = 0;
    while (awaitWork(queue, Duration.ofMillis(100)) && quiet++ < 100) {
      // signals from before (a reconnect wakes everyone): drain them
    }
    queue.enqueue("wake", "{}");
    boolean woken = awaitWork(queue, WAIT);
    long wokenAfter = AcrossFailover.millisSince(start);

    System.out.printf(
        "[failover] %s: first claim %d ms after it, %d failures before: %s%n",
        failover, claimedAfter, failures.size(), String.join("\n  ", failures));
    System.out.printf("[failover] %s: a waiter woken %d ms after it%n", failover, wokenAfter);
    assertThat(woken).as("a wake-up from the new primary").isTrue();
    assertThat(committed).isNotNull();
    AcrossFailover.assertNewGeneration(cluster, failover, before, after);
    assertThat(rest).isEqualTo(JOBS - 2);
    return acted;
  }

  private static boolean awaitWork(FencedQueue queue, Duration timeout) {
    try {
      return queue.awaitWork("wake", timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
