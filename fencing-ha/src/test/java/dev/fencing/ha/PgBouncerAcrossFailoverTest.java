package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * PgBouncer in front of the replicated cluster across a failover, kept in front of the primary by
 * Patroni's {@code on_role_change} callback ({@link FollowPrimaryCallback}): the test starts
 * PgBouncer in front of the leader and never repoints it. One {@code PostgresFencing} handle on a
 * HikariCP pool through PgBouncer claims before a switchover and a {@code kill -9} of the leader,
 * and claims and commits through the same PgBouncer address after each, in the new generation; what
 * each call threw meanwhile, where a statement through PgBouncer lands every 100 ms, and
 * PgBouncer's server connections are printed. The first test runs the callback by hand to show what
 * a reload that changes the host does to the server connections to the old one.
 */
@ExtendWith(SharedPatroniCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PgBouncerAcrossFailoverTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Duration LEASE = Duration.ofMinutes(5);
  private static final int JOBS = 6;

  /**
   * PgBouncer's wait after a failed connection before the next: its default, 15 s, outlasts the
   * reload (the connection to the killed primary fails at once; the first to the new one came 15 s
   * later, 5 s after the reload).
   */
  private static final Duration SERVER_LOGIN_RETRY = Duration.ofSeconds(1);

  /**
   * What PgBouncer 1.18 does with its server connections when the callback points it at another
   * host while the old one still runs (run by hand, both nodes up): the idle one is closed at the
   * reload, the one in a transaction serves that transaction to its end on the old host and is
   * closed when it is given back, and the next transaction goes to the new host, whatever that host
   * is (here a standby). A callback for any role but the primary's changes nothing.
   */
  @Test
  @Order(1)
  void aReloadToAnotherHostLetsARunningTransactionEndOnTheOldOne(PatroniCluster cluster)
      throws SQLException {
    cluster.heal(WAIT);
    int leader = cluster.leader();
    int replica =
        IntStream.range(0, cluster.size()).filter(i -> i != leader).findFirst().orElseThrow();
    PostgresFixture.Database direct =
        new PostgresFixture.Database(
            cluster.nodeUrl(leader), cluster.user(), cluster.password(), "patroni-leader");
    try (PgBouncerProcess bouncer = PgBouncerProcess.start(direct, 2);
        FollowPrimaryCallback.Registration followed = cluster.repointOnPromotion(bouncer)) {
      DataSource through = bouncer.database(PgBouncerProcess.PGJDBC_PARAMETERS).dataSource();
      try (Connection busy = through.getConnection();
          Connection idle = through.getConnection()) {
        busy.setAutoCommit(false);
        assertThat(WhereProbe.where(busy)).isEqualTo(cluster.port(leader) + " false");
        assertThat(WhereProbe.where(idle)).isEqualTo(cluster.port(leader) + " false");
        List<Map<String, String>> before = bouncer.show("SERVERS");

        String asReplica = cluster.runRoleChangeCallback(replica, "replica");
        assertThat(databasePort(bouncer)).isEqualTo(cluster.port(leader));
        String asPrimary = cluster.runRoleChangeCallback(replica, "master");
        awaitDatabasePort(bouncer, cluster.port(replica));
        List<Map<String, String>> reloaded = bouncer.show("SERVERS");
        List<Map<String, String>> idleClosed =
            await(
                "the idle server connection to close",
                () -> bouncer.show("SERVERS"),
                servers -> servers.size() == 1);
        String sameTransaction = WhereProbe.where(busy);
        busy.commit();
        List<Map<String, String>> released = bouncer.show("SERVERS");
        String nextTransaction = WhereProbe.where(busy);
        busy.commit();
        String otherClient = WhereProbe.where(idle);

        cluster.runRoleChangeCallback(leader, "master");
        awaitDatabasePort(bouncer, cluster.port(leader));
        String back = WhereProbe.where(idle);

        System.out.printf(
            "[pgbouncer-reload] leader port %d, replica port %d; the callback as replica: '%s',"
                + " as primary: '%s'%n  servers before %s%n  after the reload %s%n"
                + "  then %s%n  after the busy client's commit %s%n  PgBouncer's log:%n%s%n",
            cluster.port(leader),
            cluster.port(replica),
            asReplica.strip(),
            asPrimary.strip(),
            servers(before),
            servers(reloaded),
            servers(idleClosed),
            servers(released),
            bouncerLog(bouncer));
        assertThat(asReplica).isEmpty();
        assertThat(before)
            .hasSize(2)
            .allSatisfy(server -> assertPort(server, cluster.port(leader)));
        assertThat(reloaded)
            .as("the reload marks every server connection to the old host to be closed")
            .allSatisfy(server -> assertPort(server, cluster.port(leader)))
            .allSatisfy(server -> assertThat(server.get("close_needed")).isEqualTo("1"))
            .anySatisfy(server -> assertThat(server.get("state")).isEqualTo("active"));
        assertThat(idleClosed)
            .as("the idle one is closed, the one in a transaction is not")
            .singleElement()
            .satisfies(server -> assertPort(server, cluster.port(leader)))
            .satisfies(server -> assertThat(server.get("state")).isEqualTo("active"));
        assertThat(sameTransaction)
            .as("the transaction running at the reload ends on the old host")
            .isEqualTo(cluster.port(leader) + " false");
        assertThat(released).noneSatisfy(server -> assertPort(server, cluster.port(leader)));
        assertThat(nextTransaction)
            .as("the next transaction reaches the node PgBouncer was pointed at, a standby")
            .isEqualTo(cluster.port(replica) + " true");
        assertThat(otherClient).isEqualTo(cluster.port(replica) + " true");
        assertThat(back).isEqualTo(cluster.port(leader) + " false");
      }
    }
  }

  @Test
  @Order(2)
  void claimsAndCommitsCarryOnThroughPgBouncerAfterASwitchover(PatroniCluster cluster) {
    carriesOnAcross("switchover", cluster, PatroniCluster::switchover);
  }

  @Test
  @Order(3)
  void claimsAndCommitsCarryOnThroughPgBouncerAfterTheLeaderIsKilled(PatroniCluster cluster) {
    int killed = carriesOnAcross("kill -9 of the leader", cluster, PatroniCluster::killLeader);
    cluster.startNode(killed); // it rejoins while other tests run; the next one heals
  }

  /** Returns what {@code act} returned. */
  private static int carriesOnAcross(
      String failover, PatroniCluster cluster, ToIntFunction<PatroniCluster> act) {
    cluster.heal(WAIT);
    int oldLeader = cluster.leader();
    PostgresFixture.Database direct =
        new PostgresFixture.Database(
            cluster.jdbcUrl(), cluster.user(), cluster.password(), "patroni");
    PostgresFixture.Database leader =
        new PostgresFixture.Database(
            cluster.nodeUrl(oldLeader), cluster.user(), cluster.password(), "patroni-leader");
    try (PgBouncerProcess bouncer = PgBouncerProcess.start(leader, 2, SERVER_LOGIN_RETRY);
        FollowPrimaryCallback.Registration followed = cluster.repointOnPromotion(bouncer)) {
      DataSource pool = bouncer.pool(4);
      FencedQueue queue =
          PostgresFencing.builder(pool)
              .notifications(false)
              .schema(direct.freshSchema("bouncerha"))
              .build()
              .queue();
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        ids.add(queue.enqueue("q", "{\"n\": " + i + "}"));
      }
      Job before = queue.claim("q", "before", LEASE).orElseThrow();
      assertThat(where(pool)).isEqualTo(cluster.port(oldLeader) + " false");
      cluster.awaitReplicated(WAIT);
      List<Map<String, String>> serversBefore = bouncer.show("SERVERS");

      long start = System.nanoTime();
      Instant faultAt = Instant.now();
      WhereProbe probe = new WhereProbe(bouncer, start);
      act.applyAsInt(cluster);
      List<String> failures = new ArrayList<>();
      int[] failedClaims = {0};
      Job after =
          AcrossFailover.untilItWorks(
                  start,
                  WAIT,
                  failures,
                  () -> {
                    try {
                      return queue.claim("q", "after", LEASE);
                    } catch (RuntimeException e) {
                      failedClaims[0]++;
                      throw e;
                    }
                  })
              .orElseThrow();
      long claimedAfter = AcrossFailover.millisSince(start);
      int newLeader = cluster.awaitNewLeader(WAIT);
      String whereAfter = where(pool);
      List<String> seen = probe.stop();
      FencedOutcome.Accepted committed =
          AcrossFailover.untilItWorks(
              start, WAIT, failures, () -> queue.complete(before.lease(), "\"done before\""));
      queue.complete(after.lease(), "\"done after\"");
      int rest = AcrossFailover.drain(queue, LEASE);
      List<Map<String, String>> serversAfter = bouncer.show("SERVERS");

      System.out.printf(
          "[pgbouncer-failover] %s (at %s) of node %d (port %d) to node %d (port %d): first claim"
              + " %d ms after it, %d failures before: %s%n",
          failover,
          faultAt,
          oldLeader,
          cluster.port(oldLeader),
          newLeader,
          cluster.port(newLeader),
          claimedAfter,
          failures.size(),
          String.join("\n  ", failures));
      System.out.printf(
          "[pgbouncer-failover] %s: a statement through PgBouncer every 100 ms reached:%n  %s%n",
          failover, String.join("\n  ", seen));
      System.out.printf(
          "[pgbouncer-failover] %s: the commit of the lease claimed before it: %s%n",
          failover, committed);
      System.out.printf(
          "[pgbouncer-failover] %s: the callback: %s%n", failover, callbackLines(cluster, bouncer));
      System.out.printf(
          "[pgbouncer-failover] %s: servers before %s%n  after %s%n  PgBouncer's log:%n%s%n",
          failover, servers(serversBefore), servers(serversAfter), bouncerLog(bouncer));

      assertThat(newLeader).isNotEqualTo(oldLeader);
      assertThat(whereAfter)
          .as("statements through PgBouncer reach the new primary")
          .isEqualTo(cluster.port(newLeader) + " false");
      assertThat(serversAfter)
          .as("PgBouncer's server connections after %s", failover)
          .allSatisfy(server -> assertPort(server, cluster.port(newLeader)));
      assertThat(committed.epoch()).isEqualTo(before.lease().epoch());
      AcrossFailover.assertNewGeneration(cluster, failover, before, after);
      assertTruthful(queue, ids, before, after, rest, failedClaims[0]);
      return oldLeader;
    }
  }

  /**
   * The store agrees with what every call said: the two leases' commits and the drained ones are
   * done with their results, and a job that is not done is running under a claim that threw (it
   * landed unseen, as {@link FencedQueue#claim} allows).
   */
  private static void assertTruthful(
      FencedQueue queue, List<Long> ids, Job before, Job after, int rest, int failedClaims) {
    List<JobSnapshot> jobs = ids.stream().map(id -> queue.find(id).orElseThrow()).toList();
    assertThat(queue.find(before.id()).orElseThrow())
        .extracting(JobSnapshot::state, JobSnapshot::result, JobSnapshot::epoch)
        .containsExactly(JobState.COMPLETED, "\"done before\"", before.lease().epoch().value());
    assertThat(queue.find(after.id()).orElseThrow())
        .extracting(JobSnapshot::state, JobSnapshot::result, JobSnapshot::epoch)
        .containsExactly(JobState.COMPLETED, "\"done after\"", after.lease().epoch().value());
    List<JobSnapshot> notCompleted =
        jobs.stream().filter(job -> job.state() != JobState.COMPLETED).toList();
    assertThat(notCompleted)
        .as("jobs left running by claims that threw")
        .hasSizeLessThanOrEqualTo(failedClaims)
        .allSatisfy(
            job -> {
              assertThat(job.state()).isEqualTo(JobState.RUNNING);
              assertThat(job.owner()).isEqualTo("after");
            });
    assertThat(rest).isEqualTo(JOBS - 2 - notCompleted.size());
  }

  /** Port and recovery state of the server a statement through {@code pool} reaches. */
  private static String where(DataSource pool) {
    try (Connection c = pool.getConnection()) {
      String answer = WhereProbe.where(c);
      if (!c.getAutoCommit()) {
        c.commit();
      }
      return answer;
    } catch (SQLException e) {
      throw new AssertionError(WhereProbe.WHERE + " through PgBouncer: " + e, e);
    }
  }

  private static void assertPort(Map<String, String> server, int port) {
    assertThat(server.get("port")).as("server %s", server).isEqualTo(String.valueOf(port));
  }

  /** The port PgBouncer's {@code postgres} database points at now ({@code SHOW DATABASES}). */
  private static int databasePort(PgBouncerProcess bouncer) {
    return bouncer.show("DATABASES").stream()
        .filter(row -> "postgres".equals(row.get("name")))
        .map(row -> Integer.parseInt(row.get("port")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no database postgres in " + bouncer));
  }

  /** Waits until PgBouncer has reloaded (it does so in its own loop, after the signal). */
  private static void awaitDatabasePort(PgBouncerProcess bouncer, int port) {
    await("PgBouncer to point at " + port, () -> databasePort(bouncer), now -> now == port);
  }

  /**
   * Asks {@code probe} until its answer is {@code done}, and returns that answer.
   *
   * @throws AssertionError if it is not within 10 s
   */
  private static <T> T await(String what, Supplier<T> probe, Predicate<T> done) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      T answer = probe.get();
      if (done.test(answer)) {
        return answer;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("waited 10 s for " + what + "; the last answer: " + answer);
      }
      OsProcesses.pause(Duration.ofMillis(20));
    }
  }

  /** The lines the callback wrote to the nodes' logs about {@code bouncer}. */
  private static List<String> callbackLines(PatroniCluster cluster, PgBouncerProcess bouncer) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      try {
        Files.readAllLines(cluster.log(i)).stream()
            .filter(line -> line.contains(bouncer.ini().toString()))
            .forEach(lines::add);
      } catch (IOException e) {
        lines.add("node " + i + "'s log: " + e);
      }
    }
    return lines;
  }

  private static String servers(List<Map<String, String>> rows) {
    return rows.stream()
        .map(row -> row.get("state") + "@" + row.get("port") + "(" + row.get("close_needed") + ")")
        .toList()
        .toString();
  }

  private static String bouncerLog(PgBouncerProcess bouncer) {
    return ServerProcess.tail(bouncer.log(), 40);
  }
}
