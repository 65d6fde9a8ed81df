package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Epoch;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.fault.FlakyProxy;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The append-only engine's claim of fresh jobs is one call that commits without waiting for the WAL
 * flush (so the queue's window is not locked through it), and is made durable before the jobs are
 * handed out: lost in a crash, it would be made again, the same jobs under the same epochs.
 */
@FencingDatabase
class AppendOnlyFreshClaimTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void aClaimIsFlushedToTheWalBeforeItReturns(TestSchema schema) throws SQLException {
    AtomicReference<String> afterClaim = new AtomicReference<>();
    // synchronous_commit on, as a server in production commits: the test server's default is off
    DataSource watched =
        afterTheClaim(
            onEachConnection(schema.dataSource(), "set synchronous_commit = on"), afterClaim);
    FencedQueue queue =
        PostgresFencing.builder(watched)
            .schema(schema.name())
            .engine(PostgresFencing.Engine.APPEND_ONLY)
            .build()
            .queue();
    queue.enqueueAll("q", Collections.nCopies(20, "{}"));
    queue.claim("q", "w0", LONG).orElseThrow(); // the queue's window, made by the full claim
    for (int i = 0; i < 15; i++) {
      afterClaim.set(null);
      Job job = queue.claim("q", "w1", LONG).orElseThrow();
      assertThat(afterClaim.get()).as("the claim of fresh jobs ran as one call").isNotNull();
      assertThat(flushedPast(schema, afterClaim.get()))
          .as("job %d's claim is flushed when claim() returns", job.id())
          .isTrue();
    }
  }

  @Test
  void aClaimWhoseAcknowledgementWasLostReturnsTheJobsItTook(TestSchema schema) {
    try (FlakyProxy proxy = FlakyProxy.inFrontOf(schema.database())) {
      FencedQueue queue =
          PostgresFencing.builder(proxy.database().dataSource())
              .schema(schema.name())
              .engine(PostgresFencing.Engine.APPEND_ONLY)
              .transientRetries(3)
              .retryWait(Duration.ofMillis(10))
              .build()
              .queue();
      List<Long> ids = queue.enqueueAll("q", Collections.nCopies(7, "{}"));
      assertThat(queue.claimBatch("q", "w0", LONG, 1))
          .extracting(Job::id)
          .containsExactly(ids.get(0));

      proxy.loseNextAcknowledgement("SELECT 3");
      List<Job> jobs = queue.claimBatch("q", "w1", LONG, 3);

      assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
      assertThat(jobs).extracting(Job::id).isEqualTo(ids.subList(1, 4));
      assertThat(jobs).allSatisfy(j -> assertThat(j.epoch()).isEqualTo(Epoch.FIRST));
      assertThat(queue.claimBatch("q", "w2", LONG, 3))
          .extracting(Job::id)
          .isEqualTo(ids.subList(4, 7));
    }
  }

  @Test
  void aFreshJobsFirstEpochIsTheFirstOfTheServersGeneration(TestSchema schema) throws SQLException {
    // a server on timeline 3 (generation 2), as FailoverFaultTest's broken variant fakes one: its
    // own pg_walfile_name ahead of pg_catalog's in the connections' search_path
    String shadow = schema.name() + "_timeline";
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("create schema " + shadow);
      s.execute(
          "create function "
              + shadow
              + ".pg_walfile_name(pg_lsn) returns text language sql"
              + " as $$ select '000000030000000000000001'::text $$");
    }
    DataSource onTimeline3 =
        onEachConnection(schema.dataSource(), "set search_path = " + shadow + ", pg_catalog");
    FencedQueue queue =
        PostgresFencing.builder(onTimeline3)
            .schema(schema.name())
            .engine(PostgresFencing.Engine.APPEND_ONLY)
            .build()
            .queue();
    queue.enqueueAll("q", Collections.nCopies(3, "{}"));
    queue.claim("q", "w0", LONG).orElseThrow(); // the queue's window, made by the full claim
    assertThat(queue.claimBatch("q", "w1", LONG, 2))
        .extracting(Job::epoch)
        .containsExactly(Epoch.of((2L << 32) + 1), Epoch.of((2L << 32) + 1));
  }

  /** {@code real}, whose connections run {@code sql} (a setting) as they are handed out. */
  private static DataSource onEachConnection(DataSource real, String sql) {
    InvocationHandler dataSource =
        (proxy, method, args) -> {
          Object result = Rows.invoke(real, method, args);
          if (result instanceof Connection c) {
            try (Statement s = c.createStatement()) {
              s.execute(sql);
            }
          }
          return result;
        };
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, dataSource);
  }

  /** Whether the server has flushed its WAL past {@code lsn}. */
  private static boolean flushedPast(TestSchema schema, String lsn) {
    return (Boolean)
        Rows.select(
                schema.dataSource(),
                schema.name(),
                "select pg_current_wal_flush_lsn() >= ?::pg_lsn as flushed",
                lsn)
            .getFirst()
            .get("flushed");
  }

  /**
   * {@code real}, whose connections note the server's WAL insert position right after the call of
   * {@code fencing_append_claim_fresh} returned (its commit included, as an autocommit statement).
   */
  private static DataSource afterTheClaim(DataSource real, AtomicReference<String> lsn) {
    InvocationHandler dataSource =
        (proxy, method, args) -> {
          Object result = Rows.invoke(real, method, args);
          return result instanceof Connection c ? watched(real, c, lsn) : result;
        };
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, dataSource);
  }

  private static Connection watched(DataSource real, Connection c, AtomicReference<String> lsn) {
    InvocationHandler connection =
        (proxy, method, args) -> {
          Object result = Rows.invoke(c, method, args);
          if (result instanceof PreparedStatement s
              && method.getName().equals("prepareStatement")
              && ((String) args[0]).contains("fencing_append_claim_fresh")) {
            return claimStatement(real, s, lsn);
          }
          return result;
        };
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, connection);
  }

  private static PreparedStatement claimStatement(
      DataSource real, PreparedStatement s, AtomicReference<String> lsn) {
    InvocationHandler statement =
        (proxy, method, args) -> {
          Object result = Rows.invoke(s, method, args);
          if (method.getName().equals("executeQuery")) {
            try (Connection other = real.getConnection();
                Statement q = other.createStatement();
                ResultSet r = q.executeQuery("select pg_current_wal_insert_lsn()::text")) {
              r.next();
              lsn.set(r.getString(1));
            }
          }
          return result;
        };
    return (PreparedStatement)
        Proxy.newProxyInstance(
            PreparedStatement.class.getClassLoader(),
            new Class<?>[] {PreparedStatement.class},
            statement);
  }
}
