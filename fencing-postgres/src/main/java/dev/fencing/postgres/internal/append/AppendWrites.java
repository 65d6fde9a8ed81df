package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_OPERATED;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.lateral;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.not;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.table;

import dev.fencing.FencedOutcome;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.Notifier;
import dev.fencing.postgres.internal.OutboxWrites;
import dev.fencing.postgres.internal.Refusals;
import dev.fencing.postgres.internal.RenderedSql;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendDone;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendHandout;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendOperated;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendRequeue;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * Every write of a lease on the append-only engine, single or batched, as one transaction: lock the
 * claim rows the leases name (in id order, so two batches never deadlock), read each lease's
 * hand-out and claim row, and write only for the leases that own their job then (the claim row has
 * the lease's owner, is live, its lease has not run out, and it has not given the job back, and the
 * job has no {@code done} row, since a claim row stays live while other jobs of its batch are open;
 * see {@link #ownedQuery}): a {@code done} row for a commit (with its outbox messages) or a failure
 * without attempts left, a {@code requeue} row for a failure with attempts left or a release, a new
 * expiry for a renewal; the claim row counts off the jobs settled. A claim that takes a row over
 * locks it too, so a write and a takeover of one claim row happen one after the other, and the
 * second sees the first.
 *
 * <p>A lease that did not own its job is explained afterwards from a fresh read: a repeat of a
 * write that landed (its acknowledgement lost) is accepted as a repeat, anything else refused with
 * the reason.
 */
final class AppendWrites {

  /** What a write does. */
  enum Kind {
    COMPLETE,
    FAIL,
    RELEASE,
    RENEW
  }

  /**
   * One write under a lease.
   *
   * @param result for a commit, JSON
   * @param error for a failure, as kept
   * @param micros for a failure, the retry delay; for a renewal, the lease length
   */
  record Op(
      Lease lease,
      Kind kind,
      @Nullable String result,
      List<OutboxMessage> messages,
      @Nullable String error,
      long micros) {}

  /** What became of one write: accepted (a renewal with its new lease), or refused. */
  record Outcome(
      FencedOutcome.@Nullable Accepted accepted,
      @Nullable Lease renewed,
      FencedOutcome.@Nullable Refused refused) {}

  private final Jdbc jdbc;
  private final OutboxWrites outbox;
  private final Notifier notifier;
  private final Config config;

  private final RenderedSql lockSql;
  private final RenderedSql ownedSql;
  private final RenderedSql doneSql;
  private final RenderedSql requeueSql;
  private final RenderedSql countOffSql;
  private final RenderedSql renewSql;
  private final String completeSql;

  @Inject
  AppendWrites(Jdbc jdbc, OutboxWrites outbox, Notifier notifier, Config config) {
    this.jdbc = jdbc;
    this.config = config;
    DSLContext dsl = jdbc.dsl();
    RenderedSql.Plan indexed = RenderedSql.Plan.INDEXED;
    RenderedSql.Parameters p = new RenderedSql.Parameters();
    this.lockSql = new RenderedSql(dsl, lockQuery(dsl, p), p, indexed);
    p = new RenderedSql.Parameters();
    this.ownedSql = new RenderedSql(dsl, ownedQuery(dsl, p), p, indexed);
    p = new RenderedSql.Parameters();
    this.doneSql = new RenderedSql(dsl, doneQuery(dsl, p), p, indexed);
    p = new RenderedSql.Parameters();
    this.requeueSql = new RenderedSql(dsl, requeueQuery(dsl, p), p, indexed);
    p = new RenderedSql.Parameters();
    this.countOffSql = new RenderedSql(dsl, countOffQuery(dsl, p), p, indexed);
    p = new RenderedSql.Parameters();
    this.renewSql = new RenderedSql(dsl, renewQuery(dsl, p), p, indexed);
    this.outbox = outbox;
    this.notifier = notifier;
    // the schema passed Validate.identifier; jOOQ quotes it
    this.completeSql =
        "select o_ord from "
            + dsl.render(name(config.schema(), "fencing_append_complete"))
            + "(?, ?, ?, ?)";
  }

  /**
   * Runs {@code ops} in one transaction, retried after a transient failure.
   *
   * @throws IllegalArgumentException if a lease names a job that never existed
   */
  List<Outcome> write(List<Op> ops) {
    Outcome[] outcomes =
        plainCommits(ops)
            ? jdbc.guarded(() -> jdbc.run(c -> completeOnce(c, ops, new Outcome[ops.size()])))
            : jdbc.guarded(() -> jdbc.transaction(c -> writeOnce(c, ops, new Outcome[ops.size()])));
    List<Integer> missed = new ArrayList<>();
    for (int i = 0; i < outcomes.length; i++) {
      if (outcomes[i] == null) {
        missed.add(i);
      }
    }
    if (!missed.isEmpty()) {
      explain(ops, missed, outcomes);
    }
    return List.of(outcomes);
  }

  /** Whether every write is a commit without outbox messages: one call does them all. */
  private static boolean plainCommits(List<Op> ops) {
    for (Op op : ops) {
      if (op.kind() != Kind.COMPLETE || !op.messages().isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Commits without messages as one call of {@code fencing_append_complete} (in {@code
   * schema-append.sql}), which does what {@link #writeOnce} does for them in one round trip: the
   * claim rows' locks are held for that call alone.
   */
  private Outcome[] completeOnce(Connection connection, List<Op> ops, Outcome[] outcomes)
      throws SQLException {
    int n = ops.size();
    Long[] ids = new Long[n];
    Long[] epochs = new Long[n];
    String[] owners = new String[n];
    String[] results = new String[n];
    for (int i = 0; i < n; i++) {
      Lease lease = ops.get(i).lease();
      ids[i] = lease.jobId();
      epochs[i] = lease.epoch().value();
      owners[i] = lease.owner();
      results[i] = ops.get(i).result();
    }
    try (PreparedStatement s = connection.prepareStatement(completeSql)) {
      s.setArray(1, connection.createArrayOf("bigint", ids));
      s.setArray(2, connection.createArrayOf("bigint", epochs));
      s.setArray(3, connection.createArrayOf("varchar", owners));
      s.setArray(4, connection.createArrayOf("text", results));
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          Lease lease = ops.get(r.getInt(1) - 1).lease();
          outcomes[r.getInt(1) - 1] =
              new Outcome(
                  new FencedOutcome.Accepted(lease.key(), lease.epoch(), false), null, null);
        }
      }
    }
    return outcomes;
  }

  private Outcome[] writeOnce(Connection connection, List<Op> ops, Outcome[] outcomes)
      throws SQLException {
    int n = ops.size();
    Long[] ids = new Long[n];
    Long[] epochs = new Long[n];
    String[] owners = new String[n];
    for (int i = 0; i < n; i++) {
      Lease lease = ops.get(i).lease();
      ids[i] = lease.jobId();
      epochs[i] = lease.epoch().value();
      owners[i] = lease.owner();
    }
    Map<String, Object> leases = Map.of("ids", ids, "epochs", epochs, "owners", owners);
    try (PreparedStatement s = lockSql.prepare(connection, leases);
        ResultSet r = lockSql.query(s)) {
      while (r.next()) {
        // locked, in id order
      }
    }
    Owned[] owned = new Owned[n];
    try (PreparedStatement s = ownedSql.prepare(connection, leases);
        ResultSet r = ownedSql.query(s)) {
      while (r.next()) {
        if (r.getBoolean(6)) {
          owned[r.getInt(1) - 1] =
              new Owned(r.getLong(2), r.getInt(3), r.getString(4), r.getString(5));
        }
      }
    }
    Map<Long, Integer> maxAttempts = maxAttempts(connection, ops, owned);

    Set<Long> settled = new HashSet<>();
    List<Integer> settledOps = new ArrayList<>();
    Set<Long> requeued = new HashSet<>();
    Set<Long> renewing = new TreeSet<>();
    long renewMicros = 0;
    Set<String> notify = new HashSet<>();
    Rows done = new Rows();
    Rows requeue = new Rows();
    for (int i = 0; i < n; i++) {
      Op op = ops.get(i);
      Lease lease = op.lease();
      Owned job = owned[i];
      if (job == null || settled.contains(lease.jobId())) {
        continue;
      }
      long epoch = lease.epoch().value();
      switch (op.kind()) {
        case RENEW -> {
          renewing.add(job.claimId());
          renewMicros = op.micros();
          continue;
        }
        case COMPLETE -> {
          done.add(
              lease, job.queue(), JobState.COMPLETED.dbName(), job.attempt(), op.result(), null, 0);
        }
        case FAIL -> {
          if (job.attempt() >= maxAttempts.get(lease.jobId())) {
            done.add(
                lease, job.queue(), JobState.FAILED.dbName(), job.attempt(), null, op.error(), 0);
          } else {
            requeue.add(lease, job.queue(), "fail", job.attempt(), null, op.error(), op.micros());
            requeued.add(lease.jobId());
            if (op.micros() == 0) {
              notify.add(job.queue());
            }
          }
        }
        case RELEASE -> {
          requeue.add(lease, job.queue(), "release", job.attempt() - 1, null, job.error(), 0);
          requeued.add(lease.jobId());
          notify.add(job.queue());
        }
      }
      settled.add(lease.jobId());
      settledOps.add(i);
      outcomes[i] =
          new Outcome(new FencedOutcome.Accepted(lease.key(), lease.epoch(), false), null, null);
    }
    Set<Long> ended = new HashSet<>();
    if (!done.isEmpty()) {
      // a job that already has its end (a repeat of a commit that landed) inserts nothing here,
      // and is explained afterwards
      try (PreparedStatement s = doneSql.prepare(connection, done.values());
          ResultSet r = doneSql.query(s)) {
        while (r.next()) {
          ended.add(r.getLong(1));
        }
      }
    }
    if (!requeue.isEmpty()) {
      execute(connection, requeueSql, requeue.values());
    }
    List<Long> offClaims = new ArrayList<>();
    List<Long> offJobs = new ArrayList<>();
    List<Integer> offBack = new ArrayList<>();
    List<OutboxWrites.Row> written = new ArrayList<>();
    for (int i : settledOps) {
      Op op = ops.get(i);
      long jobId = op.lease().jobId();
      boolean givesBack = requeued.contains(jobId);
      if (!givesBack && !ended.contains(jobId)) {
        outcomes[i] = null;
        continue;
      }
      offClaims.add(owned[i].claimId());
      offJobs.add(jobId);
      offBack.add(givesBack ? 1 : 0);
      if (op.kind() == Kind.COMPLETE) {
        written.addAll(OutboxWrites.rows(op.lease(), op.messages()));
      }
    }
    outbox.insert(connection, written);
    if (!offClaims.isEmpty()) {
      execute(
          connection,
          countOffSql,
          Map.of(
              "claims", offClaims.toArray(Long[]::new),
              "jobs", offJobs.toArray(Long[]::new),
              "back", offBack.toArray(Integer[]::new)));
    }
    if (!renewing.isEmpty()) {
      Map<Long, Instant> extended = new HashMap<>();
      try (PreparedStatement s =
              renewSql.prepare(
                  connection,
                  Map.of("claims", renewing.toArray(Long[]::new), "micros", renewMicros));
          ResultSet r = renewSql.query(s)) {
        while (r.next()) {
          long micros = r.getLong(2);
          extended.put(r.getLong(1), LeaseSql.instant(micros));
        }
      }
      for (int i = 0; i < n; i++) {
        Owned job = owned[i];
        Op op = ops.get(i);
        if (op.kind() == Kind.RENEW && job != null && extended.containsKey(job.claimId())) {
          Lease lease = op.lease();
          outcomes[i] =
              new Outcome(
                  null,
                  new Lease(
                      lease.jobId(), lease.owner(), lease.epoch(), extended.get(job.claimId())),
                  null);
        }
      }
    }
    for (String queue : notify) {
      notifier.inTransaction(connection, queue);
    }
    return outcomes;
  }

  private static void execute(Connection connection, RenderedSql sql, Map<String, Object> values)
      throws SQLException {
    try (PreparedStatement s = sql.prepare(connection, values)) {
      sql.update(s);
    }
  }

  /** A lease's job, which the lease owns. */
  private record Owned(long claimId, int attempt, @Nullable String error, String queue) {}

  /** The maximum attempts of the jobs that owned leases fail (none read when none fails). */
  private Map<Long, Integer> maxAttempts(Connection connection, List<Op> ops, Owned[] owned) {
    List<Long> failing = new ArrayList<>();
    for (int i = 0; i < owned.length; i++) {
      if (owned[i] != null && ops.get(i).kind() == Kind.FAIL) {
        failing.add(ops.get(i).lease().jobId());
      }
    }
    if (failing.isEmpty()) {
      return Map.of();
    }
    FencingAppendJob j = FENCING_APPEND_JOB;
    return jdbc.on(connection)
        .select(j.ID, j.MAX_ATTEMPTS)
        .from(j)
        .where(j.ID.in(failing))
        .fetchMap(j.ID, j.MAX_ATTEMPTS);
  }

  /** Rows of {@code done} or {@code requeue} to insert, as one array per column. */
  private static final class Rows {
    private final List<Long> ids = new ArrayList<>();
    private final List<String> queues = new ArrayList<>();
    private final List<Long> epochs = new ArrayList<>();
    private final List<String> owners = new ArrayList<>();
    private final List<String> kinds = new ArrayList<>();
    private final List<Integer> attempts = new ArrayList<>();
    private final List<String> results = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private final List<Long> micros = new ArrayList<>();

    void add(
        Lease lease,
        String queue,
        String kind,
        int attempt,
        @Nullable String result,
        @Nullable String error,
        long delayMicros) {
      ids.add(lease.jobId());
      queues.add(queue);
      epochs.add(lease.epoch().value());
      owners.add(lease.owner());
      kinds.add(kind);
      attempts.add(attempt);
      results.add(result);
      errors.add(error);
      micros.add(delayMicros);
    }

    boolean isEmpty() {
      return ids.isEmpty();
    }

    Map<String, Object> values() {
      Map<String, Object> values = new HashMap<>();
      values.put("ids", ids.toArray(Long[]::new));
      values.put("queues", queues.toArray(String[]::new));
      values.put("epochs", epochs.toArray(Long[]::new));
      values.put("owners", owners.toArray(String[]::new));
      values.put("kinds", kinds.toArray(String[]::new));
      values.put("attempts", attempts.toArray(Integer[]::new));
      values.put("results", results.toArray(String[]::new));
      values.put("errors", errors.toArray(String[]::new));
      values.put("micros", micros.toArray(Long[]::new));
      return values;
    }
  }

  /** The rare path: tells a repeat of a write that landed from a refusal, from a fresh read. */
  private void explain(List<Op> ops, List<Integer> missed, Outcome[] outcomes) {
    Set<Long> ids = new HashSet<>();
    missed.forEach(i -> ids.add(ops.get(i).lease().jobId()));
    Map<Long, AppendState> states =
        jdbc.guarded(() -> jdbc.run(c -> AppendState.read(jdbc.on(c), ids)));
    for (int i : missed) {
      Op op = ops.get(i);
      Lease lease = op.lease();
      AppendState state = states.get(lease.jobId());
      if (state == null) {
        if (wasIssued(lease.jobId())) {
          outcomes[i] =
              new Outcome(null, null, new FencedOutcome.Removed(lease.key(), lease.epoch()));
          continue;
        }
        throw new IllegalArgumentException(
            "jobId must name an existing job, but was " + lease.jobId() + " (unknown)");
      }
      FencedOutcome.Refused refused = state.refusal(lease);
      boolean repeat =
          switch (op.kind()) {
            case COMPLETE ->
                refused instanceof FencedOutcome.AlreadyFinished
                    && state.state() == JobState.COMPLETED
                    && sameResult(lease.jobId(), op.result());
            case FAIL -> givenBack(lease, state, refused, "fail", op.error());
            case RELEASE -> givenBack(lease, state, refused, "release", null);
            case RENEW -> false;
          };
      outcomes[i] =
          repeat
              ? new Outcome(
                  new FencedOutcome.Accepted(lease.key(), lease.epoch(), true), null, null)
              : new Outcome(null, null, refused);
    }
  }

  private boolean sameResult(long jobId, @Nullable String result) {
    FencingAppendDone d = FENCING_APPEND_DONE;
    Boolean same =
        jdbc.guarded(
            () ->
                jdbc.run(
                    c ->
                        jdbc.on(c)
                            .select(field(d.RESULT.eq(JSONB.valueOf(result))))
                            .from(d)
                            .where(d.JOB_ID.eq(jobId))
                            .fetchOne(0, Boolean.class)));
    return Boolean.TRUE.equals(same);
  }

  /**
   * Whether an operator failed the job while {@code lease} held it (the end is not the lease's).
   */
  private boolean failedByAnOperator(Lease lease) {
    FencingAppendOperated o = FENCING_APPEND_OPERATED;
    return jdbc.guarded(
        () ->
            jdbc.run(
                c ->
                    jdbc.on(c)
                        .fetchExists(
                            o,
                            o.JOB_ID
                                .eq(lease.jobId())
                                .and(o.EVENT.eq(inline("admin_failed")))
                                .and(o.EPOCH.eq(lease.epoch().value())))));
  }

  /**
   * Whether this lease's fail (or release) landed: the job waits in {@code requeue} (or failed for
   * good) with this lease's epoch, owner and error, or the job's next hand-out says it came from
   * such a write of this lease.
   */
  private boolean givenBack(
      Lease lease,
      AppendState state,
      FencedOutcome.Refused refused,
      String reason,
      @Nullable String error) {
    long epoch = lease.epoch().value();
    if (refused instanceof FencedOutcome.AlreadyFinished) {
      if (state.readyAt() != null) {
        return reason.equals(state.reason())
            && (error == null || error.equals(state.requeueError()));
      }
      return reason.equals("fail")
          && state.state() == JobState.FAILED
          && error != null
          && error.equals(state.doneError())
          && !failedByAnOperator(lease);
    }
    if (!(refused instanceof FencedOutcome.Superseded)) {
      return false;
    }
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    FencingAppendHandout mine = FENCING_APPEND_HANDOUT.as("mine");
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    Record next =
        jdbc.guarded(
            () ->
                jdbc.run(
                    connection ->
                        jdbc.on(connection)
                            .select(h.CAME_FROM, h.LAST_ERROR, c.OWNER)
                            .from(h)
                            .join(mine)
                            .on(mine.JOB_ID.eq(h.JOB_ID).and(mine.EPOCH.eq(epoch)))
                            .join(c)
                            .on(c.ID.eq(mine.CLAIM_ID))
                            .where(h.JOB_ID.eq(lease.jobId()))
                            .and(h.EPOCH.gt(epoch))
                            .orderBy(h.EPOCH)
                            .limit(1)
                            .fetchOne()));
    return next != null
        && reason.equals(next.get(h.CAME_FROM))
        && lease.owner().equals(next.get(c.OWNER))
        && (error == null || error.equals(next.get(h.LAST_ERROR)));
  }

  /** Whether the job id sequence ever handed out {@code jobId}: ids are never reused. */
  private boolean wasIssued(long jobId) {
    return Refusals.wasIssued(jdbc, config, "fencing_append_job_id_seq", jobId);
  }

  /** The leases, as a table {@code x(x_job, x_epoch, x_owner, x_ord)}. */
  private static Table<?> leases(RenderedSql.Parameters p) {
    return table(
            "unnest({0}, {1}, {2}) with ordinality",
            p.bigints("ids"), p.bigints("epochs"), p.varchars("owners"))
        .as("x", "x_job", "x_epoch", "x_owner", "x_ord");
  }

  private static final Field<Long> X_JOB = field(name("x_job"), Long.class);
  private static final Field<Long> X_EPOCH = field(name("x_epoch"), Long.class);
  private static final Field<String> X_OWNER = field(name("x_owner"), String.class);
  private static final Field<Long> X_ORD = field(name("x_ord"), Long.class);

  /** Locks the claim rows of the leases' hand-outs, in id order. */
  private static Query lockQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    // a subquery per lease, so each is a look-up by key whatever the statistics say (a join let
    // the planner read the whole hand-out table before the first ANALYZE)
    Field<Long> claimOf =
        field(select(h.CLAIM_ID).from(h).where(h.JOB_ID.eq(X_JOB)).and(h.EPOCH.eq(X_EPOCH)));
    return dsl.select(c.ID)
        .from(c)
        .where(
            c.ID.eq(
                any(
                    field(
                        "array({0})",
                        SQLDataType.BIGINT.array(), select(claimOf).from(leases(p))))))
        .orderBy(c.ID)
        .forNoKeyUpdate();
  }

  /**
   * Each lease's hand-out and claim row, by position, with whether the lease owns its job now. An
   * earlier form tested the job's other rows as anti-joins (12 ms to plan and 8 ms to run for a
   * batch of 100), then as subqueries (which PostgreSQL turned into hashed subplans reading whole
   * tables before the first ANALYZE).
   */
  private static Query ownedQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    // OFFSET 0 keeps the lateral subquery from being flattened into a join: each lease is two
    // look-ups by key, whatever the statistics say (a join read whole tables before the first
    // ANALYZE). A job given back is in its claim row's given_back, one handed out again was given
    // back or taken over (the row is then not live); one already done (its claim row still live
    // while others of its batch are open) has its end, looked up by key: without that look-up a
    // release, fail or renewal of a completed job was accepted, and a release handed it out again.
    Table<?> o =
        lateral(
                select(
                        h.CLAIM_ID,
                        h.ATTEMPT,
                        h.LAST_ERROR,
                        c.QUEUE,
                        field(
                                c.OWNER
                                    .eq(X_OWNER)
                                    .and(c.LIVE)
                                    .and(c.LEASE_EXPIRES_AT.gt(currentOffsetDateTime()))
                                    .and(not(X_JOB.eq(any(c.GIVEN_BACK))))
                                    .andNotExists(
                                        selectOne()
                                            .from(FENCING_APPEND_DONE)
                                            .where(FENCING_APPEND_DONE.JOB_ID.eq(X_JOB))))
                            .as("owned"))
                    .from(h)
                    .join(c)
                    .on(c.ID.eq(h.CLAIM_ID))
                    .where(h.JOB_ID.eq(X_JOB))
                    .and(h.EPOCH.eq(X_EPOCH))
                    .offset(inline(0)))
            .as("o");
    return dsl.select(
            X_ORD,
            o.field(h.CLAIM_ID),
            o.field(h.ATTEMPT),
            o.field(h.LAST_ERROR),
            o.field(c.QUEUE),
            o.field("owned", Boolean.class))
        .from(leases(p))
        .crossJoin(o);
  }

  /** Rows to insert, as a table {@code u(u_id, u_queue, ...)} of one array per column. */
  private static Table<?> rows(RenderedSql.Parameters p) {
    return table(
            "unnest({0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8})",
            p.bigints("ids"),
            p.varchars("queues"),
            p.bigints("epochs"),
            p.varchars("owners"),
            p.varchars("kinds"),
            p.integers("attempts"),
            p.texts("results"),
            p.varchars("errors"),
            p.bigints("micros"))
        .as(
            "u",
            "u_id",
            "u_queue",
            "u_epoch",
            "u_owner",
            "u_kind",
            "u_attempts",
            "u_result",
            "u_error",
            "u_micros");
  }

  private static <T> Field<T> u(String column, Class<T> type) {
    return field(name("u_" + column), type);
  }

  private static Query doneQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendDone d = FENCING_APPEND_DONE;
    return dsl.insertInto(
            d, d.JOB_ID, d.QUEUE, d.EPOCH, d.STATUS, d.OWNER, d.ATTEMPTS, d.RESULT, d.LAST_ERROR)
        .select(
            select(
                    u("id", Long.class),
                    u("queue", String.class),
                    u("epoch", Long.class),
                    u("kind", String.class),
                    u("owner", String.class),
                    u("attempts", Integer.class),
                    field("{0}::jsonb", SQLDataType.JSONB, u("result", String.class)),
                    u("error", String.class))
                .from(rows(p)))
        .onConflict(d.JOB_ID)
        .doNothing()
        .returning(d.JOB_ID);
  }

  private static Query requeueQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
    return dsl.insertInto(
            r, r.JOB_ID, r.QUEUE, r.READY_AT, r.EPOCH, r.OWNER, r.ATTEMPTS, r.REASON, r.LAST_ERROR)
        .select(
            select(
                    u("id", Long.class),
                    u("queue", String.class),
                    LeaseSql.nowPlusMicros(u("micros", Long.class)),
                    u("epoch", Long.class),
                    u("owner", String.class),
                    u("attempts", Integer.class),
                    u("kind", String.class),
                    u("error", String.class))
                .from(rows(p)));
  }

  /**
   * Counts settled jobs off their claim rows (a row with none left open is no longer live) and adds
   * those given back to the row's {@code given_back}.
   */
  private static Query countOffQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    Field<Integer> k = field(name("k_count"), Integer.class);
    Field<Long[]> back = field(name("k_back"), SQLDataType.BIGINT.array());
    Table<?> counted =
        table(
                "(select u.claim_id as k_id, count(*)::int as k_count,"
                    + " coalesce(array_agg(u.job_id) filter (where u.back = 1), '{}') as k_back"
                    + " from unnest({0}, {1}, {2}) as u(claim_id, job_id, back)"
                    + " group by u.claim_id)",
                p.bigints("claims"), p.bigints("jobs"), p.integers("back"))
            .as("k");
    return dsl.update(c)
        .set(c.OPEN, c.OPEN.minus(k))
        .set(c.LIVE, field(c.OPEN.minus(k).gt(inline(0))))
        .set(c.GIVEN_BACK, field("{0} || {1}", SQLDataType.BIGINT.array(), c.GIVEN_BACK, back))
        .from(counted)
        .where(c.ID.eq(field(name("k_id"), Long.class)));
  }

  private static Query renewQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    return dsl.update(c)
        .set(c.LEASE_EXPIRES_AT, LeaseSql.nowPlusMicros(p.bigint("micros")))
        .where(c.ID.eq(any(p.bigints("claims"))))
        .returning(c.ID, LeaseSql.micros(c.LEASE_EXPIRES_AT));
  }
}
