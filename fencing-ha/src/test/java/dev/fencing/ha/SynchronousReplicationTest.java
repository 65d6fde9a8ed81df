package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.Replication;
import dev.fencing.testkit.db.PostgresFixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Synchronous mode against Patroni's {@code synchronous_mode}: {@link PostgresFencing#replication}
 * names the replica as an attached synchronous standby, the queue claims and commits waiting for
 * it, and once the replica is killed it reports none attached (without waiting for one itself).
 */
@ExtendWith(SharedPatroniCluster.class)
class SynchronousReplicationTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Duration LEASE = Duration.ofMinutes(5);

  @Test
  void replicationReportsTheSynchronousStandbyAndNoneOnceItIsKilled(PatroniCluster cluster) {
    cluster.heal(WAIT);
    int replica = 1 - cluster.leader();
    try {
      cluster.setSynchronousMode(true);
      String standby = cluster.awaitSynchronousStandby(WAIT);
      PostgresFixture.Database db =
          new PostgresFixture.Database(
              cluster.jdbcUrl(), cluster.user(), cluster.password(), "patroni");
      PostgresFencing fencing =
          PostgresFencing.builder(db.pooledDataSource(2))
              .schema(db.freshSchema("sync"))
              .synchronousReplication(true)
              .build();

      Replication attached = fencing.replication();
      assertThat(attached.synchronousMode()).isTrue();
      assertThat(attached.standby()).isEqualTo(Replication.Standby.ATTACHED);
      assertThat(attached.standbyNames()).contains(standby).contains(cluster.nodeName(replica));
      FencedQueue queue = fencing.queue();
      queue.enqueue("q", "{}");
      Job job = queue.claim("q", "w", LEASE).orElseThrow();
      assertThat(queue.complete(job.lease(), "\"done\"").repeat()).isFalse();

      cluster.killNode(replica);
      long deadline = System.nanoTime() + WAIT.toNanos();
      Replication now = fencing.replication();
      while (now.standby() != Replication.Standby.NONE) {
        assertThat(System.nanoTime()).as("no synchronous standby reported").isLessThan(deadline);
        OsProcesses.pause(Duration.ofMillis(100));
        now = fencing.replication();
      }
      assertThat(now.synchronousMode()).isTrue();
    } finally {
      cluster.setSynchronousMode(false);
      cluster.awaitAsynchronous(WAIT);
      cluster.heal(WAIT);
    }
  }
}
