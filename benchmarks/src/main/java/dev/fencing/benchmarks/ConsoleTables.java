package dev.fencing.benchmarks;

import dev.fencing.FencedOffException;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.OutboxMessage;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.PostgresFencing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.sql.DataSource;

/**
 * Fills one schema for {@link ConsoleBenchmark} as an operator's console finds it after a while in
 * production: finished jobs over a few queues (a few per cent failed, finished over the last two
 * hours, one in ten with an idempotency key), pending jobs, running ones, a few jobs with two
 * claims and refused writes, resource ownerships and undelivered outbox messages.
 *
 * <p>The finished jobs are aged by the retention benchmark's {@link AgedTables} (bulk SQL that
 * writes what the engine's enqueue, claim and commit write), one queue after the other; then one
 * statement per queue gives them their finish times (spread over the last two hours in id order),
 * fails one in {@value #FAIL_EVERY} for good and gives one in ten a key. The pending jobs are
 * {@link AgedTables#topUp}'s, the running ones, the history, the ownerships and the outbox messages
 * go through the real API. Then VACUUM ANALYZE on every table of the schema, as autovacuum would
 * have done by the time anyone looks.
 */
final class ConsoleTables {

  /** The queues the finished, pending and running jobs are spread over. */
  static final List<String> QUEUES = List.of("email", "billing", "reports", "thumbnails");

  /** The queue of the jobs with two claims and refused writes. */
  static final String HISTORY_QUEUE = "audit";

  /** One finished job in this many failed for good. */
  static final int FAIL_EVERY = 25;

  /**
   * An index the schema does not have, which the queues page's chart of the last hour (per queue:
   * the jobs finished in each 5-minute span, by status) can read alone: per engine, the table of
   * finished jobs by queue and finish time, with the status. {@code %s} is the schema.
   */
  static final String PROPOSED_INDEX =
      "create index bench_console_finished_ix on \"%s\".%s (queue, finished_at) include"
          + " (status)%s";

  private static final int HISTORY_JOBS = 3;
  private static final int OWNERSHIPS = 50;
  private static final Duration FIRST_LEASE = Duration.ofMillis(100);

  private final PostgresFencing.Engine engine;
  private final AgedTables aged;
  private final int chunk;

  ConsoleTables(PostgresFencing.Engine engine, int chunk) {
    this.engine = engine;
    this.chunk = chunk;
    this.aged =
        engine == PostgresFencing.Engine.APPEND_ONLY
            ? new AppendOnlyTables(
                RetentionSettings.parse(
                    new String[] {"--chunk", Integer.toString(chunk), "--slice", "1000"}))
            : new UpdateInPlaceTables();
  }

  /** What the pages are asked about: a key, a job with history, and what the fill wrote. */
  record Filled(String key, long historyJob, long finished, long pending, long running) {}

  /**
   * Fills {@code schema}, freshly installed for this engine, with {@code finished} finished jobs
   * and {@code pending} pending ones, {@code running} of them then claimed; returns what the pages
   * ask for.
   */
  Filled fill(DataSource ds, String schema, long finished, long pending, long running)
      throws SQLException, InterruptedException {
    Validate.identifier("schema", schema);
    int n = QUEUES.size();
    for (int q = 0; q < n; q++) {
      long jobs = share(finished, q, n);
      aged.age(ds, schema, QUEUES.get(q), 0, jobs, chunk);
      finishTimesFailuresAndKeys(ds, schema, QUEUES.get(q));
    }
    vacuumAnalyze(ds, schema);
    FencedQueue queue = aged.builder(ds, schema).install(false).build().queue();
    for (int q = 0; q < n; q++) {
      aged.topUp(ds, schema, QUEUES.get(q), (int) share(pending, q, n));
    }
    long claimed = 0;
    for (int q = 0; q < n; q++) {
      int want = (int) share(running, q, n);
      if (want > 0) {
        claimed +=
            queue.claimBatch(QUEUES.get(q), "worker-" + q, Duration.ofMinutes(30), want).size();
      }
    }
    long historyJob = history(queue);
    PostgresFencing fencing = aged.builder(ds, schema).install(false).build();
    for (int i = 0; i < OWNERSHIPS; i++) {
      fencing.ownership().acquire("resource-" + i, "node-" + (i % 3), Duration.ofMinutes(30));
    }
    vacuumAnalyze(ds, schema);
    return new Filled(key(ds, schema), historyJob, finished, pending, claimed);
  }

  /** The {@code q}-th of {@code n} shares of {@code total}; the first ones take the remainder. */
  private static long share(long total, int q, int n) {
    return total / n + (q < total % n ? 1 : 0);
  }

  /**
   * Jobs claimed by {@code worker-a} whose lease ran out, claimed again by {@code worker-b} and
   * completed with an outbox message; {@code worker-a}'s renewal and late completion are refused
   * (and recorded). Returns the last such job's id.
   */
  private static long history(FencedQueue queue) throws InterruptedException {
    queue.enqueueAll(HISTORY_QUEUE, Collections.nCopies(HISTORY_JOBS, "{\"order\":42}"));
    List<Job> first = queue.claimBatch(HISTORY_QUEUE, "worker-a", FIRST_LEASE, HISTORY_JOBS);
    Thread.sleep(FIRST_LEASE.toMillis() + 150);
    List<Job> second =
        queue.claimBatch(HISTORY_QUEUE, "worker-b", Duration.ofMinutes(5), HISTORY_JOBS);
    if (first.size() != HISTORY_JOBS || second.size() != HISTORY_JOBS) {
      throw new IllegalStateException(
          "the history jobs were claimed "
              + first.size()
              + " and "
              + second.size()
              + " times, not "
              + HISTORY_JOBS);
    }
    long last = 0;
    for (Job job : second) {
      long id = job.lease().jobId();
      queue.complete(
          job.lease(), "{}", List.of(new OutboxMessage("ledger", "order-" + id, "{\"paid\":1}")));
      last = Math.max(last, id);
    }
    List<String> refused = new ArrayList<>();
    for (Job zombie : first) {
      try {
        queue.renew(zombie.lease(), Duration.ofMinutes(1));
      } catch (FencedOffException e) {
        refused.add("renew");
      }
      try {
        queue.complete(zombie.lease(), "{}");
      } catch (FencedOffException e) {
        refused.add("complete");
      }
    }
    if (refused.size() != 2 * HISTORY_JOBS) {
      throw new IllegalStateException("the zombie's writes were not all refused: " + refused);
    }
    return last;
  }

  /**
   * Gives {@code queue}'s finished jobs finish times spread over the last two hours (newer ids
   * later), fails one in {@value #FAIL_EVERY} for good (attempts used up, an error) and gives one
   * in ten an idempotency key.
   */
  private void finishTimesFailuresAndKeys(DataSource ds, String schema, String queue)
      throws SQLException {
    String s = "\"" + schema + "\".";
    String failed = "%s %% " + FAIL_EVERY + " = 0";
    String when =
        " now() - interval '2 hours' * (b.hi - %1$s)::float8 / (b.hi - b.lo + 1) - interval '1"
            + " second'";
    // min(id + 0), not min(id): once analyzed, the planner read min and max along the primary key,
    // through the earlier queues' rows and their dead versions, for minutes; one scan takes seconds
    List<String> statements = new ArrayList<>();
    if (engine == PostgresFencing.Engine.APPEND_ONLY) {
      statements.add(
          "update "
              + s
              + "fencing_append_done d set finished_at ="
              + when.formatted("d.job_id")
              + ", status = case when "
              + failed.formatted("d.job_id")
              + " then 'failed' else 'completed' end, result = case when "
              + failed.formatted("d.job_id")
              + " then null else d.result end, last_error = case when "
              + failed.formatted("d.job_id")
              + " then 'bench: card declined, attempts used up' end from (select min(job_id + 0) lo,"
              + " max(job_id + 0) hi from "
              + s
              + "fencing_append_done where queue = ?) b where d.queue = ?");
      statements.add(
          "update "
              + s
              + "fencing_append_job set idempotency_key = 'order-' || id where queue = ? and id"
              + " % 10 = 3");
    } else {
      statements.add(
          "update "
              + s
              + "fencing_job j set finished_at ="
              + when.formatted("j.id")
              + ", status = case when "
              + failed.formatted("j.id")
              + " then 'failed' else 'completed' end, result = case when "
              + failed.formatted("j.id")
              + " then null else j.result end, last_error = case when "
              + failed.formatted("j.id")
              + " then 'bench: card declined, attempts used up' end, last_event = case when "
              + failed.formatted("j.id")
              + " then 'failed' else j.last_event end, attempts = case when "
              + failed.formatted("j.id")
              + " then j.max_attempts else j.attempts end, idempotency_key = case when j.id % 10"
              + " = 3 then 'order-' || j.id end from (select min(id + 0) lo, max(id + 0) hi from "
              + s
              + "fencing_job where queue = ? and status = 'completed') b where j.queue = ? and"
              + " j.status = 'completed'");
    }
    try (Connection c = ds.getConnection()) {
      for (String sql : statements) {
        try (PreparedStatement p = c.prepareStatement(sql)) {
          for (int i = 1; i <= p.getParameterMetaData().getParameterCount(); i++) {
            p.setString(i, queue);
          }
          p.executeUpdate();
        }
      }
    }
  }

  /** Creates {@link #PROPOSED_INDEX} on {@code schema} and analyzes its table. */
  void createProposedIndex(DataSource ds, String schema) throws SQLException {
    String sql = proposedIndex(schema);
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
    vacuumAnalyze(ds, schema);
  }

  /** {@link #PROPOSED_INDEX} for this engine on {@code schema}. */
  String proposedIndex(String schema) {
    return engine == PostgresFencing.Engine.APPEND_ONLY
        ? PROPOSED_INDEX.formatted(Validate.identifier("schema", schema), "fencing_append_done", "")
        : PROPOSED_INDEX.formatted(
            Validate.identifier("schema", schema),
            "fencing_job",
            " where status in ('completed', 'failed')");
  }

  /** The newest idempotency key of a finished job. */
  private String key(DataSource ds, String schema) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "select idempotency_key from \""
                    + schema
                    + "\"."
                    + aged.jobTable()
                    + " where idempotency_key is not null order by id desc limit 1")) {
      if (!r.next()) {
        throw new IllegalStateException("no job of " + schema + " has a key: too few jobs");
      }
      return r.getString(1);
    }
  }

  private static void vacuumAnalyze(DataSource ds, String schema) throws SQLException {
    List<String> tables = new ArrayList<>();
    try (Connection c = ds.getConnection()) {
      try (PreparedStatement p =
          c.prepareStatement("select tablename from pg_tables where schemaname = ?")) {
        p.setString(1, schema);
        try (ResultSet r = p.executeQuery()) {
          while (r.next()) {
            tables.add(r.getString(1));
          }
        }
      }
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        for (String t : tables) {
          s.execute(
              "vacuum analyze \"" + schema + "\".\"" + Validate.identifier("table", t) + "\"");
        }
      }
    }
  }
}
