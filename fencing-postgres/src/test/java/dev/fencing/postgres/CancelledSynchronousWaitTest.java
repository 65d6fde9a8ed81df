package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.OutcomeUnknownException;
import dev.fencing.StoreUnavailableException;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Synchronous mode on a PostgreSQL of this test's own (the setting blocks every commit of the
 * server, so never the shared one), whose {@code synchronous_standby_names} names a standby that
 * does not exist and whose default {@code synchronous_commit} is {@code off}: a write of the queue
 * waits all the same, since synchronous mode forces it {@code on} for the transaction; another
 * connection cancels the wait ({@code pg_cancel_backend}); PostgreSQL answers the COMMIT with a
 * WARNING, the row is visible on the primary, and the caller must get an unknown outcome, never a
 * success. On both engines, each in a schema of its own on the one server.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CancelledSynchronousWaitTest {

  private static final Duration LEASE = Duration.ofMinutes(5);
  private static final long WAIT_SECONDS = 60;

  private static EmbeddedPostgres pg;
  private static HikariDataSource pool;

  /** Per engine: the handle in synchronous mode, and the job it claimed before the setting. */
  private static final Map<PostgresFencing.Engine, PostgresFencing> fencing =
      new EnumMap<>(PostgresFencing.Engine.class);

  private static final Map<PostgresFencing.Engine, Job> claimed =
      new EnumMap<>(PostgresFencing.Engine.class);

  private static final ExecutorService caller = Executors.newSingleThreadExecutor();

  @BeforeAll
  static void startAServerWhoseCommitsWaitForAMissingStandby() throws Exception {
    pg = EmbeddedPostgres.builder().start();
    HikariConfig config = new HikariConfig();
    config.setDataSource(pg.getPostgresDatabase());
    config.setMaximumPoolSize(1); // so the test can look at the very connection the queue used
    config.setPoolName("cancelled-synchronous-wait");
    pool = new HikariDataSource(config);
    for (PostgresFencing.Engine engine : PostgresFencing.Engine.values()) {
      PostgresFencing handle =
          PostgresFencing.builder(pool)
              .schema(schema(engine))
              .engine(engine)
              .synchronousReplication(true)
              .build();
      assertThat(handle.replication())
          .isEqualTo(new Replication(true, "", Replication.Standby.NONE));
      FencedQueue queue = handle.queue();
      queue.enqueue("q", "{}");
      fencing.put(engine, handle);
      claimed.put(engine, queue.claim("q", "w", LEASE).orElseThrow());
    }

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

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  @Order(1)
  void replicationReportsTheNamedStandbyAsNotAttached(PostgresFencing.Engine engine) {
    assertThat(fencing.get(engine).replication())
        .isEqualTo(new Replication(true, "nobody", Replication.Standby.NONE));
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  @Order(2)
  void anEnqueueWhoseWaitWasCancelledIsUnknownThoughThePrimaryShowsIt(PostgresFencing.Engine engine)
      throws Exception {
    Throwable thrown = cancelled(() -> fencing.get(engine).queue().enqueue("q", "{\"n\": 2}"));

    assertThat(thrown)
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("wait for the synchronous standby was cancelled")
        .hasMessageContaining("a failover may lose it");
    assertThat(jobs(engine, "{\"n\": 2}"))
        .as("committed locally: a read-back would have called it a success")
        .isEqualTo("1");
    assertThat(one("show synchronous_commit"))
        .as("the pooled connection kept its own setting")
        .isEqualTo("off");
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  @Order(3)
  void aCommitWhoseWaitWasCancelledIsNoSuccessNorIsItsRetry(PostgresFencing.Engine engine)
      throws Exception {
    FencedQueue queue = fencing.get(engine).queue();
    Job job = claimed.get(engine);
    Throwable first = cancelled(() -> queue.complete(job.lease(), "\"done\""));

    assertThat(first)
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("PostgreSQL (schema ")
        .hasMessageContaining("wait for the synchronous standby was cancelled");
    assertThat(observer(engine).find(job.id()).orElseThrow().state())
        .as("the primary shows it completed")
        .isEqualTo(JobState.COMPLETED);

    // the API says committing again with the same lease is safe: it reads the row back, and that
    // read waits for the standby too, so it cannot call an unreplicated commit a success
    Throwable again = cancelled(() -> queue.complete(job.lease(), "\"done\""));
    assertThat(again)
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("wait for the synchronous standby was cancelled");
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  @Order(4)
  void anEnqueueWhoseBackendWasTerminatedWhileItWaitedIsUnknown(PostgresFencing.Engine engine)
      throws Exception {
    // PostgreSQL closes the connection after its warning, sending nothing more: a lost
    // acknowledgement
    Throwable thrown =
        ended("pg_terminate_backend", () -> fencing.get(engine).queue().enqueue("q", "{\"n\": 4}"));

    assertThat(thrown)
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("may or may not have been added");
    assertThat(jobs(engine, "{\"n\": 4}"))
        .as("committed locally before the session ended")
        .isEqualTo("1");
  }

  /** The engine's own schema on this server: each schema records one engine. */
  private static String schema(PostgresFencing.Engine engine) {
    return engine.name().toLowerCase(Locale.ROOT);
  }

  /**
   * A queue of the engine's schema that is not in synchronous mode: its reads, on connections of
   * their own past the pool, wait for no standby, so they show what the primary holds.
   */
  private static FencedQueue observer(PostgresFencing.Engine engine) {
    return PostgresFencing.builder(pg.getPostgresDatabase())
        .schema(schema(engine))
        .engine(engine)
        .install(false)
        .build()
        .queue();
  }

  /** How many of the engine's job rows have {@code payload}, on the primary, as text. */
  private static String jobs(PostgresFencing.Engine engine, String payload) throws SQLException {
    return direct(
        "select count(*) from "
            + schema(engine)
            + "."
            + Rows.jobTable(engine)
            + " where payload = '"
            + payload
            + "'");
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
