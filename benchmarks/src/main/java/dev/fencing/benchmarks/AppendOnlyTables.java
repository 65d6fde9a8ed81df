package dev.fencing.benchmarks;

import static dev.fencing.benchmarks.RetentionVariant.AUTOVACUUM;
import static dev.fencing.benchmarks.RetentionVariant.MAINTENANCE;
import static dev.fencing.benchmarks.RetentionVariant.NO_VACUUM;

import dev.fencing.FencedQueue;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.PostgresFencing;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * The append-only engine's tables for {@link RetentionBenchmark} ({@code --engine append};
 * docs/ENGINE.md): jobs inserted once, a claim row per claimed batch with a hand-out per job, a
 * {@code done} row per finished job, {@code requeue} rows for jobs given back, and the queue's
 * window.
 *
 * <p>Aging, per chunk of jobs, five statements, each its own transaction as the engine's are:
 *
 * <ol>
 *   <li>the enqueue: the chunk's job rows, carrying the inserting transaction's id ({@code
 *       pg_current_xact_id()}) as the engine's enqueue writes it;
 *   <li>the claim: the window moves on as a claim that took every job of its window does ({@code
 *       lo} := {@code hi}, {@code hi} := the current snapshot, in which the chunk's transaction is
 *       committed, the position after the chunk's last job), one claim row per {@code
 *       --claim-batch} jobs (live, lease 5 min, epochs the server generation's first) and one
 *       hand-out per job, attempt 1;
 *   <li>the commit: a {@code done} row per job, except one job in 100, which fails with attempts
 *       left (a {@code requeue} row, in its claim row's {@code given_back}); the claim rows count
 *       their jobs off (open 0, no longer live);
 *   <li>the reclaim of the failed jobs: their {@code requeue} rows deleted, new claim rows and
 *       hand-outs at the next epoch, attempt 2;
 *   <li>their commit: {@code done} rows, the claim rows counted off.
 * </ol>
 *
 * <p>Times (claim, lease, finish, ready) are now for the newest tenth of a step's jobs and a day
 * ago for the others, so retention removes those. Before the bulk, what is left on the queue is
 * drained through the real API; after it, the last {@code --slice} jobs of the step (at most a
 * tenth of it) are enqueued ({@code enqueueAll}), claimed ({@code claimBatch} of 100) and committed
 * ({@code completeAll}) through the real API, so the window's state the windows start from is one
 * the engine wrote. Then ANALYZE (not VACUUM) on the engine's tables, in every variant, as
 * autovacuum's analyze would have.
 */
final class AppendOnlyTables implements AgedTables {

  private static final String[] TABLES = {"job", "window", "claim", "handout", "done", "requeue"};

  /** One job in this many fails once during aging, and goes through {@code requeue}. */
  private static final int FAIL_EVERY = 100;

  private static final Duration LEASE = Duration.ofMinutes(5);

  /** What the real-API pass claims and commits at a time. */
  private static final int API_BATCH = 100;

  private final RetentionSettings settings;

  AppendOnlyTables(RetentionSettings settings) {
    this.settings = settings;
  }

  @Override
  public Names names() {
    return new Names(
        "## Append-only engine: claim cost as the tables age (issue 22)",
        "bench_append_age",
        MAINTENANCE,
        NO_VACUUM,
        AUTOVACUUM);
  }

  @Override
  public PostgresFencing.Builder builder(DataSource ds, String schema) {
    return PostgresFencing.builder(ds).schema(schema).engine(PostgresFencing.Engine.APPEND_ONLY);
  }

  /** For {@code NO_VACUUM}: autovacuum off on the engine's tables (analyze is run by aging). */
  @Override
  public void prepare(DataSource ds, String schema, RetentionVariant variant) throws SQLException {
    if (variant.vacuumed) {
      return;
    }
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      for (String t : TABLES) {
        s.execute("alter table " + table(schema, t) + " set (autovacuum_enabled = false)");
      }
    }
  }

  @Override
  public void topUp(DataSource ds, String schema, String queue, int backlog) {
    long pending = queue(ds, schema).depth(queue).pending();
    if (pending >= backlog) {
      return;
    }
    // one statement, one transaction, as the engine's enqueueAll writes a batch
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "insert into "
              + table(schema, "job")
              + " (queue, xid, payload, max_attempts) select '"
              + Validate.identifier("queue", queue)
              + "', pg_current_xact_id()::text::bigint, '{}'::jsonb, 5 from generate_series(1, "
              + (backlog - pending)
              + ")");
      analyze(s, schema);
    } catch (SQLException e) {
      throw new IllegalStateException("seeding " + schema + "." + queue + ": " + e, e);
    }
  }

  @Override
  public void age(DataSource ds, String schema, String queue, long from, long to, int chunk)
      throws SQLException {
    Validate.identifier("queue", queue);
    FencedQueue api = queue(ds, schema);
    AgedTables.drain(api, queue);
    long slice = Math.min(settings.slice(), (to - from) / 10);
    long bulkTo = to - slice;
    long recentFrom = to - (to - from) / 10;
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      long firstEpoch;
      try (ResultSet r =
          s.executeQuery(
              "select ((('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)"
                  + "::bigint - 1) << 32) + 1")) {
        r.next();
        firstEpoch = r.getLong(1);
      }
      s.executeUpdate(
          "insert into "
              + table(schema, "window")
              + " (queue, lo, hi, after_xid, after_id) values ('"
              + queue
              + "', '3:3:', '3:3:', 0, 0) on conflict do nothing");
      for (long done = from; done < bulkTo; ) {
        int n = (int) Math.min(chunk, bulkTo - done);
        chunk(s, schema, queue, n, done, recentFrom, firstEpoch);
        done += n;
      }
    }
    List<String> payloads = Collections.nCopies(1_000, "{}");
    for (long sent = 0; sent < slice; sent += payloads.size()) {
      api.enqueueAll(queue, payloads.subList(0, (int) Math.min(payloads.size(), slice - sent)));
    }
    AgedTables.drain(api, queue);
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      analyze(s, schema);
    }
  }

  /** Ages one chunk of {@code n} jobs, the first {@code done} processed before it. */
  private void chunk(
      Statement s, String schema, String queue, int n, long done, long recentFrom, long firstEpoch)
      throws SQLException {
    String q = "'" + queue + "'";
    long first;
    long last;
    long xid;
    try (ResultSet r =
        s.executeQuery(
            "with added as (insert into "
                + table(schema, "job")
                + " (queue, xid, payload, max_attempts) select "
                + q
                + ", pg_current_xact_id()::text::bigint, '{}'::jsonb, 5 from generate_series(1, "
                + n
                + ") returning id, xid) select min(id), max(id), max(xid) from added")) {
      r.next();
      first = r.getLong(1);
      last = r.getLong(2);
      xid = r.getLong(3);
    }
    // ids of one insert are consecutive here: nothing else inserts while the tables age
    long recentId = first + Math.max(0, recentFrom - done);
    String when = " case when %s >= " + recentId + " then now() else now() - interval '1 day' end";
    String failed = " %s %% " + FAIL_EVERY + " = 0";
    long[] claims =
        claims(
            s,
            schema,
            "with w as (update "
                + table(schema, "window")
                + " set lo = hi, hi = pg_current_snapshot()::text, after_xid = "
                + xid
                + ", after_id = "
                + last
                + " where queue = "
                + q
                + "), g as (select id, (id - "
                + first
                + ") / "
                + settings.claimBatch()
                + " as grp,"
                + when.formatted("id")
                + " as t from generate_series("
                + first
                + "::bigint, "
                + last
                + "::bigint) id)",
            q,
            firstEpoch,
            1,
            "fresh");
    s.executeUpdate(
        "with d as ("
            + done(schema, q, firstEpoch, 1, when, first, last, "not" + failed.formatted("id"))
            + "), r as (insert into "
            + table(schema, "requeue")
            + " (job_id, queue, ready_at, epoch, owner, attempts, reason, last_error) select id, "
            + q
            + ","
            + when.formatted("id")
            + ", "
            + firstEpoch
            + ", 'aging', 1, 'fail', 'failed once (aging)' from generate_series("
            + first
            + "::bigint, "
            + last
            + "::bigint) id where"
            + failed.formatted("id")
            + ") update "
            + table(schema, "claim")
            + " set open = 0, live = false, given_back = array(select x from unnest(job_ids) x"
            + " where"
            + failed.formatted("x")
            + ") where id between "
            + claims[0]
            + " and "
            + claims[1]);
    long[] again =
        claims(
            s,
            schema,
            "with q as (delete from "
                + table(schema, "requeue")
                + " where queue = "
                + q
                + " and job_id between "
                + first
                + " and "
                + last
                + " returning job_id), g as (select job_id as id, (row_number() over (order by"
                + " job_id) - 1) / "
                + settings.claimBatch()
                + " as grp,"
                + when.formatted("job_id")
                + " as t from q)",
            q,
            firstEpoch + 1,
            2,
            "fail");
    if (again.length > 0) {
      s.executeUpdate(
          "with d as ("
              + done(schema, q, firstEpoch + 1, 2, when, first, last, failed.formatted("id"))
              + ") update "
              + table(schema, "claim")
              + " set open = 0, live = false where id between "
              + again[0]
              + " and "
              + again[1]);
    }
  }

  /**
   * Inserts a claim row per group of {@code g(id, grp, t)} (defined by {@code with}) and a hand-out
   * per job, at {@code epoch}; returns the first and last claim row's id, or none.
   */
  private static long[] claims(
      Statement s, String schema, String with, String q, long epoch, int attempt, String cameFrom)
      throws SQLException {
    try (ResultSet r =
        s.executeQuery(
            with
                + ", c as (insert into "
                + table(schema, "claim")
                + " (queue, owner, lease_expires_at, job_ids, epochs, open, claim_token, claimed_at)"
                + " select "
                + q
                + ", 'aging', t + interval '5 minutes', array_agg(id order by id), array_agg("
                + epoch
                + "::bigint order by id), count(*), gen_random_uuid(), t from g group by grp, t"
                + " returning id, job_ids, epochs), h as (insert into "
                + table(schema, "handout")
                + " (job_id, epoch, claim_id, attempt, came_from, last_error) select u.job_id,"
                + " u.epoch, c.id, "
                + attempt
                + ", '"
                + cameFrom
                + "', "
                + (attempt == 1 ? "null" : "'failed once (aging)'")
                + " from c cross join lateral unnest(c.job_ids, c.epochs) as u(job_id, epoch))"
                + " select min(id), max(id) from c")) {
      r.next();
      long firstClaim = r.getLong(1);
      return r.wasNull() ? new long[0] : new long[] {firstClaim, r.getLong(2)};
    }
  }

  /** An insert of {@code done} rows, completed at {@code epoch}, for the ids {@code which}. */
  private static String done(
      String schema,
      String q,
      long epoch,
      int attempts,
      String when,
      long first,
      long last,
      String which) {
    return "insert into "
        + table(schema, "done")
        + " (job_id, queue, epoch, status, owner, attempts, result, finished_at) select id, "
        + q
        + ", "
        + epoch
        + ", 'completed', 'aging', "
        + attempts
        + ", '{}'::jsonb,"
        + when.formatted("id")
        + " from generate_series("
        + first
        + "::bigint, "
        + last
        + "::bigint) id where "
        + which;
  }

  private FencedQueue queue(DataSource ds, String schema) {
    return builder(ds, schema).install(false).build().queue();
  }

  private static void analyze(Statement s, String schema) throws SQLException {
    for (String t : TABLES) {
      s.execute("analyze " + table(schema, t));
    }
  }

  private static String table(String schema, String name) {
    return "\"" + Validate.identifier("schema", schema) + "\".fencing_append_" + name;
  }

  @Override
  public String jobTable() {
    return "fencing_append_job";
  }

  @Override
  public Storage storage(DataSource ds, String schema) throws SQLException {
    long jobRows = 0;
    long dead = 0;
    long bytes = 0;
    StringBuilder detail = new StringBuilder();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      // make the dead-tuple estimates current
      s.execute("select pg_stat_clear_snapshot()");
      for (String t : TABLES) {
        String table = table(schema, t);
        try (ResultSet r =
            s.executeQuery(
                "select (select count(*) from "
                    + table
                    + "), (select n_dead_tup from pg_stat_user_tables where relid = '"
                    + table
                    + "'::regclass), pg_total_relation_size('"
                    + table
                    + "')")) {
          r.next();
          if (t.equals("job")) {
            jobRows = r.getLong(1);
          }
          dead += r.getLong(2);
          bytes += r.getLong(3);
          detail.append(
              String.format(
                  Locale.ROOT,
                  " %,d / %,d / %.1f |",
                  r.getLong(1),
                  r.getLong(2),
                  r.getLong(3) / 1e6));
        }
      }
      try (ResultSet r =
          s.executeQuery(
              "select pg_relation_size('"
                  + table(schema, "claim")
                  + "_live_ix'), pg_relation_size('"
                  + table(schema, "requeue")
                  + "_ready_ix'), pg_relation_size('"
                  + table(schema, "job")
                  + "_window_ix')")) {
        r.next();
        return new Storage(
            jobRows,
            String.format(
                Locale.ROOT,
                " %,d | %,d | %.1f | %.2f | %.2f | %.2f",
                jobRows,
                dead,
                bytes / 1e6,
                r.getLong(1) / 1e6,
                r.getLong(2) / 1e6,
                r.getLong(3) / 1e6),
            detail.substring(0, detail.length() - 2));
      }
    }
  }

  @Override
  public String storageHeader() {
    return " job rows | dead tuples | tables MB | claim_live_ix MB | requeue_ready_ix MB"
        + " | job_window_ix MB";
  }

  @Override
  public String storageSeparator() {
    return "---:|---:|---:|---:|---:|---:";
  }

  @Override
  public String detailHeader() {
    return "Every table after the row's window (rows / dead tuples / MB with indexes):\n\n"
        + "| table | variant | long transaction | queue | job | window | claim | handout | done"
        + " | requeue |\n|---|---|---|---|---:|---:|---:|---:|---:|---:|\n";
  }

  @Override
  public String describe(RetentionSettings settings) {
    return String.format(
        Locale.ROOT,
        "Engine: append-only (`engine(Engine.APPEND_ONLY)`). Aged tables were aged in bulk SQL,"
            + " chunks of %,d jobs, each chunk in five transactions as the engine writes them:"
            + " the jobs inserted (carrying their transaction's id), claimed (the window moved"
            + " past them, one claim row per %d jobs, a hand-out per job), committed (a `done` row"
            + " per job; one job in %d failed once instead: a `requeue` row), the failed ones"
            + " claimed again (their `requeue` rows deleted, new claim rows and hand-outs) and"
            + " committed; claim rows counted off (no longer live). All but the newest tenth of"
            + " each aging step were claimed and finished a day ago. The last %,d jobs of each"
            + " step (at most a tenth) went through the real API (`enqueueAll`, `claimBatch` of"
            + " %d, `completeAll`), and so did what was left of the backlog before a step; then"
            + " ANALYZE (not VACUUM) on the engine's tables. `maintenance`: PostgresMaintenance"
            + " rounds in a loop (keepFinished 1 min, batch %,d, VACUUM every 10 s) during aging"
            + " and measurement. `maintenance, no VACUUM`: the same rounds with `vacuumEvery`"
            + " zero, and autovacuum off on the engine's tables: nothing vacuums them."
            + " `autovacuum only`: no maintenance (nothing deleted), autovacuum with the schema's"
            + " settings (claim and requeue tables after 10,000 dead versions, the others at"
            + " PostgreSQL's defaults). `long transaction`: another connection holds a REPEATABLE READ"
            + " snapshot, taken by a read of the job table, over the warm-up and the window."
            + " Rows, dead tuples (PostgreSQL's estimate, every table) and sizes (with indexes"
            + " and TOAST) are taken after the window; the three indexes are those the claim's"
            + " scans read.",
        settings.chunk(),
        settings.claimBatch(),
        FAIL_EVERY,
        settings.slice(),
        API_BATCH,
        settings.batch());
  }
}
