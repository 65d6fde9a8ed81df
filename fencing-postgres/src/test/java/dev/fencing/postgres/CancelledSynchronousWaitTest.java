package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.OutcomeUnknownException;
import dev.fencing.StoreUnavailableException;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Synchronous mode on a PostgreSQL of this test's own (the setting blocks every commit of the
 * server, so never the shared one), whose {@code synchronous_standby_names} names a standby that
 * does not exist and whose default {@code synchronous_commit} is {@code off}: a write of the queue
 * waits all the same, since synchronous mode forces it {@code on} for the transaction; another
 * connection cancels the wait ({@code pg_cancel_backend}); PostgreSQL answers the COMMIT with a
 * WARNING, the row is visible on the primary, and the caller must get an unknown outcome, never a
 * success.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CancelledSynchronousWaitTest {

  private static final Duration LEASE = Duration.ofMinutes(5);
  private static final long WAIT_SECONDS = 60;

  private static EmbeddedPostgres pg;
  private static HikariDataSource pool;
  private static PostgresFencing fencing;
  private static Job claimed;
  private static final ExecutorService caller = Executors.newSingleThreadExecutor();

  @BeforeAll
  static void startAServerWhoseCommitsWaitForAMissingStandby() throws Exception {
    pg = EmbeddedPostgres.builder().start();
    HikariConfig config = new HikariConfig();
    config.setDataSource(pg.getPostgresDatabase());
    config.setMaximumPoolSize(1); // so the test can look at the very connection the queue used
    config.setPoolName("cancelled-synchronous-wait");
    pool = new HikariDataSource(config);
    fencing = PostgresFencing.builder(pool).synchronousReplication(true).build();
    assertThat(fencing.replication())
        .isEqualTo(new Replication(true, "", Replication.Standby.NONE));
    FencedQueue queue = fencing.queue();
    queue.enqueue("q", "{}");
    claimed = queue.claim("q", "w", LEASE).orElseThrow();

    execute(
        "alter system set synchronous_commit = off",
        "alter system set synchronous_standby_names = 'nobody'",
        "select pg_reload_conf()");
    awaitSetting("synchronous_standby_names", "nobody");
    awaitSetting("synchronous_commit", "off");
  }

  @AfterAll
  static void stop() throws Exception {
    caller.shutdownNow();
    if (pool != null) {
      pool.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  @Order(1)
  void replicationReportsTheNamedStandbyAsNotAttached() {
    assertThat(fencing.replication())
        .isEqualTo(new Replication(true, "nobody", Replication.Standby.NONE));
  }

  @Test
  @Order(2)
  void anEnqueueWhoseWaitWasCancelledIsUnknownThoughThePrimaryShowsIt() throws Exception {
    Throwable thrown = cancelled(() -> fencing.queue().enqueue("q", "{\"n\": 2}"));

    assertThat(thrown)
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("wait for the synchronous standby was cancelled")
        .hasMessageContaining("a failover may lose it");
    assertThat(direct("select count(*) from fencing.fencing_job where payload = '{\"n\": 2}'"))
        .as("committed locally: a read-back would have called it a success")
        .isEqualTo("1");
    assertThat(one("show synchronous_commit"))
        .as("the pooled connection kept its own setting")
        .isEqualTo("off");
  }

  @Test
  @Order(3)
  void aCommitWhoseWaitWasCancelledIsNoSuccessNorIsItsRetry() throws Exception {
    Throwable first = cancelled(() -> fencing.queue().complete(claimed.lease(), "\"done\""));

    assertThat(first)
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("FencedQueue.complete")
        .hasMessageContaining("wait for the synchronous standby was cancelled");
    assertThat(direct("select status from fencing.fencing_job where id = " + claimed.id()))
        .as("the primary shows it completed")
        .isEqualTo("completed");

    // the API says committing again with the same lease is safe: it reads the row back, and that
    // read waits for the standby too, so it cannot call an unreplicated commit a success
    Throwable again = cancelled(() -> fencing.queue().complete(claimed.lease(), "\"done\""));
    assertThat(again)
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("wait for the synchronous standby was cancelled");
  }

  @Test
  @Order(4)
  void anEnqueueWhoseBackendWasTerminatedWhileItWaitedIsUnknown() throws Exception {
    // PostgreSQL closes the connection after its warning, sending nothing more: a lost
    // acknowledgement
    Throwable thrown =
        ended("pg_terminate_backend", () -> fencing.queue().enqueue("q", "{\"n\": 4}"));

    assertThat(thrown)
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("may or may not have been added");
    assertThat(direct("select count(*) from fencing.fencing_job where payload = '{\"n\": 4}'"))
        .as("committed locally before the session ended")
        .isEqualTo("1");
  }

  private static Throwable cancelled(java.util.concurrent.Callable<?> call) throws Exception {
    return ended("pg_cancel_backend", call);
  }

  /**
   * Runs {@code call} on another thread, ends its wait for the standby with {@code function} once
   * PostgreSQL shows the backend waiting on {@code SyncRep}, and returns what the call threw.
   */
  private static Throwable ended(String function, java.util.concurrent.Callable<?> call)
      throws Exception {
    Future<?> running = caller.submit(call);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    String cancelledPids = "";
    while (cancelledPids.isEmpty()) {
      assertThat(running.isDone())
          .as("the call returned without waiting for the standby")
          .isFalse();
      assertThat(System.nanoTime()).as("a backend waiting on SyncRep").isLessThan(deadline);
      cancelledPids =
          direct(
              "select coalesce(string_agg("
                  + function
                  + "(pid)::text, ','), '')"
                  + " from pg_stat_activity where wait_event = 'SyncRep'");
      Thread.sleep(20);
    }
    Throwable thrown = catchThrowable(() -> running.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertThat(thrown).as("the call must not succeed").isNotNull();
    return thrown.getCause();
  }

  /** Waits until a new session sees {@code name} set to {@code value} (the reload is async). */
  private static void awaitSetting(String name, String value) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!value.equals(direct("show " + name))) {
      assertThat(System.nanoTime())
          .as("%s = %s after the reload", name, value)
          .isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  /**
   * Runs {@code sql} on a connection of the pool (the one the queue uses) and returns one value.
   */
  private static String one(String sql) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      r.next();
      return r.getString(1);
    }
  }

  /** Runs {@code sql} on a connection of its own, past the pool, and returns one value. */
  private static String direct(String sql) throws SQLException {
    try (Connection c = pg.getPostgresDatabase().getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      r.next();
      return r.getString(1);
    }
  }

  private static void execute(String... statements) throws SQLException {
    try (Connection c = pg.getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }
}
