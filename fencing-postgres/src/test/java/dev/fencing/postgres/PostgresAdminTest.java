package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.CancelResult;
import dev.fencing.FencedQueue;
import dev.fencing.JobState;
import dev.fencing.SchemaNotInstalledException;
import dev.fencing.SchemaVersionException;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The admin contract on the update-in-place engine, and its schema checks. */
class PostgresAdminTest extends PostgresAdminContract {

  @Override
  PostgresFencing.Engine engine() {
    return PostgresFencing.Engine.UPDATE_IN_PLACE;
  }

  @Override
  void finishedDaysAgo(TestSchema schema, int days, long... ids) throws Exception {
    execute(
        schema,
        "update fencing_job set finished_at = now() - interval '"
            + days
            + " days', run_at = now() - interval '"
            + (days + 1)
            + " days' where id in ("
            + Arrays.stream(ids).mapToObj(Long::toString).collect(Collectors.joining(", "))
            + ")");
  }

  /**
   * A cancel takes the job's row lock before it reads the job: a commit in progress (its update
   * done, its transaction open) is waited for, and then the cancel finds the job completed and
   * writes nothing. Read without the lock, the cancel would see the job running and overwrite the
   * commit.
   */
  @Test
  void aCancelWaitsForACommitInProgressAndThenFindsTheJobEnded(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema, 5);
    long id = queue.enqueue("q", "{}");
    queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();
    CompletableFuture<CancelResult> cancel;
    try (Connection committer = schema.dataSource().getConnection();
        Connection watcher = schema.dataSource().getConnection()) {
      committer.setAutoCommit(false);
      long pid;
      try (Statement s = committer.createStatement()) {
        s.execute("set search_path to \"" + schema.name() + "\"");
        s.executeUpdate(
            "update fencing_job set status = 'completed', result = '{}'::jsonb,"
                + " lease_expires_at = null, finished_at = now(), last_event = 'completed'"
                + " where id = "
                + id);
        try (ResultSet r = s.executeQuery("select pg_backend_pid()")) {
          r.next();
          pid = r.getLong(1);
        }
      }
      cancel = CompletableFuture.supplyAsync(() -> queue.cancel(id, "late"));
      awaitBlockedBy(watcher, pid, cancel);
      committer.commit();
    }
    assertThat(cancel.get(30, TimeUnit.SECONDS))
        .isEqualTo(new CancelResult.AlreadyEnded(id, JobState.COMPLETED));
    assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
  }

  /** Waits (at most 30 s) until a statement waits for a lock that backend {@code pid} holds. */
  private static void awaitBlockedBy(Connection watcher, long pid, CompletableFuture<?> call)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline && !call.isDone()) {
      try (Statement s = watcher.createStatement();
          ResultSet r =
              s.executeQuery(
                  "select count(*) from pg_stat_activity where "
                      + pid
                      + " = any(pg_blocking_pids(pid))")) {
        r.next();
        if (r.getLong(1) > 0) {
          return;
        }
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the cancel did not wait for the commit in progress: " + call);
  }

  /**
   * The install path alters no existing table (an ALTER ... ADD COLUMN would take an ACCESS
   * EXCLUSIVE lock and stop running workers): a job table of an older version is refused by the
   * admin for the version it records (none), named by an install (whose script fails on it and is
   * rolled back whole), and left as it was.
   */
  @Test
  void anOlderJobTableIsNamedAndNotAltered(TestSchema schema) throws Exception {
    execute(
        schema, "create table fencing_job (id bigserial primary key, queue varchar(63) not null)");

    assertThatThrownBy(() -> admin(schema))
        .isInstanceOf(SchemaVersionException.class)
        .hasMessageContaining("records no version");
    assertThatThrownBy(() -> queue(schema, 5))
        .isInstanceOf(SchemaNotInstalledException.class)
        .hasMessageContaining("schema " + schema.name())
        .hasMessageContaining("idempotency_key");
    assertThatThrownBy(() -> admin(schema))
        .isInstanceOf(SchemaVersionException.class)
        .hasMessageContaining("records no version");
  }
}
