package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fixture does what failover tests rely on, against real Patroni, etcd and PostgreSQL. Its kill
 * of the leader is tested where it is used: {@link FailoverFaultTest} (every job enqueued before
 * the kill is on the promoted node, whose timeline is larger), {@link QueueAcrossFailoverTest} and
 * {@link PgBouncerAcrossFailoverTest}; each costs Patroni's 10 s TTL, so the fixture has none of
 * its own.
 */
@ExtendWith(SharedPatroniCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PatroniClusterTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  @Order(1)
  void theUrlReachesThePrimaryAndItsWritesReachTheReplica(PatroniCluster cluster)
      throws SQLException {
    cluster.heal(WAIT);
    int leader = cluster.leader();
    int replica = 1 - leader;
    String table = "t_" + Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);

    try (Connection c = connect(cluster, cluster.jdbcUrl())) {
      assertThat(one(c, "select pg_is_in_recovery()::text")).isEqualTo("false");
      assertThat(one(c, "select inet_server_port()::text")).isEqualTo(port(cluster, leader));
      execute(c, "create table " + table + " (v text)", "insert into " + table + " values ('x')");
    }
    cluster.awaitReplicated(WAIT);

    assertThat(cluster.query(replica, "select pg_is_in_recovery()::text")).isEqualTo("true");
    assertThat(cluster.query(replica, "select v from " + table)).isEqualTo("x");
  }

  @Test
  @Order(2)
  void synchronousModeAttachesTheReplicaAsASynchronousStandby(PatroniCluster cluster) {
    cluster.heal(WAIT);
    int replica = 1 - cluster.leader();
    try {
      cluster.setSynchronousMode(true);

      assertThat(cluster.awaitSynchronousStandby(WAIT)).isEqualTo(cluster.nodeName(replica));
      assertThat(cluster.query(cluster.leader(), "show synchronous_standby_names"))
          .contains(cluster.nodeName(replica));
    } finally {
      cluster.setSynchronousMode(false);
      cluster.awaitAsynchronous(WAIT);
    }
  }

  @Test
  @Order(4)
  void closeEndsEveryProcessItStartedAndKeepsTheLogs() {
    Set<ProcessHandle> processes;
    Path dir;
    try (PatroniCluster single = PatroniCluster.start(1)) {
      processes = single.processes();
      dir = single.dir();
      // etcd, Patroni, the postmaster and at least one of its children
      assertThat(processes).hasSizeGreaterThanOrEqualTo(4);
    }
    assertThat(processes).noneMatch(OsProcesses::alive);
    assertThat(dir.resolve("pg1")).doesNotExist();
    assertThat(dir.resolve("etcd")).doesNotExist();
    assertThat(dir.resolve("pg1.log")).isRegularFile();
    assertThat(Files.isRegularFile(dir.resolve("etcd.log"))).isTrue();
  }

  private static String port(PatroniCluster cluster, int node) {
    return Integer.toString(cluster.port(node));
  }

  private static Connection connect(PatroniCluster cluster, String url) throws SQLException {
    return DriverManager.getConnection(url, cluster.user(), cluster.password());
  }

  private static String one(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      assertThat(rs.next()).as("a row from %s", sql).isTrue();
      return rs.getString(1);
    }
  }

  private static void execute(Connection c, String... statements) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }
}
