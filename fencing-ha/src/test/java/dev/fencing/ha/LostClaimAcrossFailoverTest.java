package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The failover the generation exists for (docs/HA.md): a claim that the old primary committed and
 * never sent to its replica, lost when the replica is promoted. The leader's WAL sender is stopped
 * with {@code SIGSTOP} while the claim commits (asynchronous replication: the commit does not
 * wait), so the claim is missing on the replica for certain; the leader is then killed with {@code
 * SIGKILL}, its WAL sender too. The same job is claimed again on the promoted node by another
 * owner.
 *
 * <p>With the library's claim, the second owner's token is larger than the lost one: the promotion
 * started a new timeline, so a new failover generation. With a claim that only adds one to the
 * row's epoch (the generation turned off), both owners hold the same token: the check below fails
 * on it, which shows that it can.
 */
@ExtendWith(SharedPatroniCluster.class)
class LostClaimAcrossFailoverTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Claims job {@code id} for {@code owner} and returns its epoch. */
  @FunctionalInterface
  interface Claim {
    long claim(DataSource pool, FencedQueue queue, String schema, long id, String owner)
        throws SQLException;
  }

  /** The epochs of the lost claim and of the claim after the failover. */
  record Tokens(long lost, long after) {}

  @Test
  void theClaimAfterTheFailoverHasALargerTokenThanTheClaimItLost(PatroniCluster cluster) {
    Tokens tokens = acrossALostClaim(cluster, LostClaimAcrossFailoverTest::library);

    assertThat(tokens.after())
        .as("one token, one owner: the second owner's epoch against the lost claim's")
        .isGreaterThan(tokens.lost());
    assertThat(tokens.after() >>> 32).isEqualTo((tokens.lost() >>> 32) + 1);
  }

  @Test
  void withoutTheGenerationTheLostClaimsTokenGoesToASecondOwner(PatroniCluster cluster) {
    Tokens tokens = acrossALostClaim(cluster, LostClaimAcrossFailoverTest::withoutGeneration);

    assertThat(tokens.after())
        .as("the check above fails on the generation turned off: two owners, one token")
        .isEqualTo(tokens.lost());
  }

  private static Tokens acrossALostClaim(PatroniCluster cluster, Claim claim) {
    cluster.heal(WAIT);
    // asynchronous: with a synchronous standby, the claim's commit would wait for the stopped
    // receiver
    cluster.setSynchronousMode(false);
    cluster.awaitAsynchronous(WAIT);
    PostgresFixture.Database db =
        new PostgresFixture.Database(
            cluster.jdbcUrl(), cluster.user(), cluster.password(), "patroni");
    DataSource pool = db.pooledDataSource(2);
    String schema = db.freshSchema("lost");
    FencedQueue queue = PostgresFencing.builder(pool).schema(schema).build().queue();
    long id = queue.enqueue("q", "{}");
    cluster.awaitReplicated(WAIT);

    int leader = cluster.leader();
    int replica = leader == 0 ? 1 : 0;
    // the leader's WAL sender, stopped: the claim's WAL never leaves the leader (a stopped WAL
    // receiver would not do: the kernel still accepts the data into its socket, and it reads it
    // when thawed)
    long sender = Long.parseLong(cluster.query(leader, "select pid from pg_stat_replication"));
    long lost;
    int killed;
    OsProcesses.signal(sender, "STOP");
    try {
      lost = untilItWorks(() -> claim.claim(pool, queue, schema, id, "first"));
      assertThat(
              cluster.query(
                  replica, "select status || ' ' || epoch from " + schema + ".fencing_job"))
          .as("the job on the replica: the claim never reached it")
          .isEqualTo("pending 0");
      killed = cluster.killLeader();
    } finally {
      // a stopped process does not follow its postmaster; SIGKILL ends it, sending nothing more
      OsProcesses.signal(sender, "KILL");
    }
    cluster.awaitNewLeader(WAIT);
    long after = untilItWorks(() -> claim.claim(pool, queue, schema, id, "second"));
    System.out.printf(
        "[lost claim] lost claim at epoch %d (generation %d), the claim after the failover at %d"
            + " (generation %d)%n",
        lost, lost >>> 32, after, after >>> 32);
    cluster.startNode(killed); // it rejoins (pg_rewind) while other tests run; the next one heals
    return new Tokens(lost, after);
  }

  /** The library's claim. */
  private static long library(
      DataSource pool, FencedQueue queue, String schema, long id, String owner) {
    Job job = queue.claim("q", owner, Duration.ofMinutes(5)).orElseThrow();
    assertThat(job.id()).isEqualTo(id);
    return job.epoch().value();
  }

  /** A claim whose epoch is the row's plus one: no failover generation. */
  private static long withoutGeneration(
      DataSource pool, FencedQueue queue, String schema, long id, String owner)
      throws SQLException {
    String sql =
        "update "
            + schema
            + ".fencing_job set status = 'running', owner = ?, epoch = epoch + 1,"
            + " attempts = attempts + 1, last_event = 'claimed',"
            + " lease_expires_at = now() + interval '5 minutes'"
            + " where id = ? and status = 'pending' returning epoch";
    try (Connection c = pool.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      if (!c.getAutoCommit()) {
        throw new IllegalStateException("the pool must hand out autocommit connections");
      }
      s.setString(1, owner);
      s.setLong(2, id);
      try (ResultSet r = s.executeQuery()) {
        if (!r.next()) {
          throw new AssertionError("job " + id + " was not pending");
        }
        return r.getLong(1);
      }
    }
  }

  /** Calls {@code call} until the store answers, for at most {@link #WAIT}. */
  private static long untilItWorks(SqlCall call) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      try {
        return call.run();
      } catch (StoreUnavailableException | SQLException e) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the store did not answer within " + WAIT, e);
        }
        OsProcesses.pause(Duration.ofMillis(250));
      }
    }
  }

  @FunctionalInterface
  private interface SqlCall {
    long run() throws SQLException;
  }
}
