package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_OPERATED;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_WINDOW;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.not;
import static org.jooq.impl.DSL.notExists;
import static org.jooq.impl.DSL.or;
import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.val;

import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.RenderedSql;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendWindow;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.Record4;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * A queue's fresh jobs, as the append-only engine's claim takes them: the queue's window between
 * two snapshots (PgQ's design, docs/ENGINE.md). A job row carries the id of the transaction that
 * enqueued it; the jobs of the window are those whose transaction is visible in its {@code hi}
 * snapshot and not in its {@code lo}, all committed and a fixed set once {@code hi} is taken. A
 * claim locks the window row (claims of one queue take fresh jobs one after the other, and never
 * the same), reads its next jobs in {@code (xid, id)} order from its position, and moves the
 * position; when the window has fewer jobs left than the batch, it also reads the next window
 * ({@code lo := hi}, {@code hi := pg_current_snapshot()}), and moves on to it only once it took
 * every job of the current one.
 *
 * <p>Owns the window's lock, its scan, its move, and the snapshot tests that {@link AppendStore}'s
 * depth shares.
 */
final class AppendWindow {

  /** The enqueueing transaction's id, as the job row keeps it. */
  static final Field<Long> CURRENT_XID =
      field("pg_current_xact_id()::text::bigint", SQLDataType.BIGINT);

  /** A snapshot in which no transaction is visible: the first window starts there. */
  static final String NOTHING_VISIBLE = "3:3:";

  private final Jdbc jdbc;
  private final RenderedSql windowSql;
  private final RenderedSql freshSql;
  private final RenderedSql moveSql;

  @Inject
  AppendWindow(Jdbc jdbc) {
    this.jdbc = jdbc;
    DSLContext dsl = jdbc.dsl();
    RenderedSql.Plan indexed = RenderedSql.Plan.INDEXED;
    this.windowSql = RenderedSql.of(dsl, indexed, AppendWindow::windowQuery);
    this.freshSql = RenderedSql.of(dsl, indexed, AppendWindow::freshQuery);
    this.moveSql = RenderedSql.of(dsl, indexed, AppendWindow::moveQuery);
  }

  /** A queue's window: between snapshots {@code lo} and {@code hi}, after a position. */
  record Window(String lo, String hi, long afterXid, long afterId) {}

  /**
   * What a claim read of a window: the first {@code inWindow} of {@code jobs} are of the current
   * window; the rest of the next one (between its {@code hi} and {@code next}), read because the
   * current one had fewer than a batch.
   */
  record Fresh(Window window, List<Candidate> jobs, int inWindow, @Nullable String next) {

    /**
     * Where the window moves past the {@code taken} first fresh jobs of a batch of {@code n}, or
     * null if it stays: on to the next window once everything of the current one is taken.
     */
    @Nullable Move move(int taken, int n) {
      if (next != null && inWindow < n && taken >= inWindow && !next.equals(window.hi())) {
        Candidate last = taken > inWindow ? jobs.get(taken - 1) : null;
        return new Move(
            window.hi(), next, last == null ? 0L : last.xid(), last == null ? 0L : last.jobId());
      }
      if (taken > 0) {
        Candidate last = jobs.get(Math.min(taken, inWindow) - 1);
        return new Move(window.lo(), window.hi(), last.xid(), last.jobId());
      }
      return null;
    }
  }

  /** Where the window goes: its snapshots, and the position after the last fresh job taken. */
  record Move(String lo, String hi, long afterXid, long afterId) {

    /** No move: the values a statement that moves the window only when told binds instead. */
    static final Move NONE = new Move("", "", 0, 0);

    Map<String, Object> values(String queue) {
      return Map.of("queue", queue, "lo", lo, "hi", hi, "afterXid", afterXid, "afterId", afterId);
    }
  }

  /**
   * Locks the queue's window (made first if the queue has none) and reads up to {@code n} of its
   * next jobs, and of the next window's when the current one has fewer than {@code n}.
   */
  Fresh read(Connection connection, String queue, int n) throws SQLException {
    Window window = lock(connection, queue);
    if (window == null) {
      create(jdbc.on(connection), queue);
      window = lock(connection, queue);
      if (window == null) {
        throw new IllegalStateException("the window of queue " + queue + " vanished");
      }
    }
    List<Candidate> fresh =
        fresh(connection, queue, window.lo(), window.hi(), window.afterXid(), window.afterId(), n);
    int inWindow = fresh.size();
    String next = null;
    if (inWindow < n) {
      try (Statement s = connection.createStatement();
          ResultSet r = s.executeQuery("select pg_current_snapshot()::text")) {
        r.next();
        next = r.getString(1);
      }
      if (!next.equals(window.hi())) {
        fresh.addAll(fresh(connection, queue, window.hi(), next, 0L, 0L, n - inWindow));
      }
    }
    return new Fresh(window, fresh, inWindow, next);
  }

  /** Moves the window of {@code queue}, in a claim that hands out no job. */
  void move(Connection connection, String queue, Move move) throws SQLException {
    try (PreparedStatement s = moveSql.prepare(connection, move.values(queue))) {
      moveSql.update(s);
    }
  }

  /** Makes the first window of {@code queue}, unless it has one. */
  static void create(DSLContext dsl, String queue) {
    FencingAppendWindow w = FENCING_APPEND_WINDOW;
    dsl.insertInto(w)
        .set(w.QUEUE, queue)
        .set(w.LO, NOTHING_VISIBLE)
        .set(w.HI, NOTHING_VISIBLE)
        .set(w.AFTER_XID, 0L)
        .set(w.AFTER_ID, 0L)
        .onConflictDoNothing()
        .execute();
  }

  private @Nullable Window lock(Connection connection, String queue) throws SQLException {
    try (PreparedStatement s = windowSql.prepare(connection, Map.of("queue", queue));
        ResultSet r = windowSql.query(s)) {
      return r.next()
          ? new Window(r.getString(1), r.getString(2), r.getLong(3), r.getLong(4))
          : null;
    }
  }

  private static Query windowQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendWindow w = FENCING_APPEND_WINDOW;
    return dsl.select(w.LO, w.HI, w.AFTER_XID, w.AFTER_ID)
        .from(w)
        .where(w.QUEUE.eq(p.varchar("queue")))
        .forNoKeyUpdate();
  }

  /**
   * The next {@code limit} jobs of the window between snapshots {@code lo} and {@code hi}, after
   * position {@code (afterXid, afterId)}: committed when {@code hi} was taken, not when {@code lo}
   * was.
   *
   * <p>A position before {@code lo}'s xmin (a window just moved to has none) is raised to it first:
   * the same jobs, but PostgreSQL starts the index range scan at the row comparison, not at the
   * larger {@code xid} bound, so a position {@code (0, 0)} made every such claim read the queue's
   * whole {@code (queue, xid, id)} index, every job kept and every dead entry not yet vacuumed
   * (measured: 4,929 buffers a claim after a million jobs, 4 with the position raised;
   * docs/BENCHMARKS.md, issue 22's storage).
   */
  private List<Candidate> fresh(
      Connection connection,
      String queue,
      String lo,
      String hi,
      long afterXid,
      long afterId,
      int limit)
      throws SQLException {
    // (xmin, 0) comes before every job of transaction xmin (ids start at 1): nothing skipped
    boolean before = afterXid < xmin(lo);
    long positionXid = before ? xmin(lo) : afterXid;
    long positionId = before ? 0 : afterId;
    List<Candidate> items = new ArrayList<>();
    try (PreparedStatement s =
            freshSql.prepare(
                connection,
                Map.of(
                    "queue", queue,
                    "lo", lo,
                    "hi", hi,
                    "afterXid", positionXid,
                    "afterId", positionId,
                    "limit", limit));
        ResultSet r = freshSql.query(s)) {
      while (r.next()) {
        items.add(
            new Candidate(
                r.getLong(1),
                r.getObject(5, OffsetDateTime.class),
                0,
                0,
                "fresh",
                null,
                r.getString(3),
                r.getInt(4),
                r.getLong(2),
                0,
                null,
                0));
      }
    }
    return items;
  }

  private static Query freshQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendJob j = FENCING_APPEND_JOB;
    Param<String> lo = p.varchar("lo");
    Param<String> hi = p.varchar("hi");
    return dsl.select(j.ID, j.XID, j.PAYLOAD, j.MAX_ATTEMPTS, j.CREATED_AT)
        .from(j)
        .where(j.QUEUE.eq(p.varchar("queue")))
        .and(j.XID.ge(snapshotBound("pg_snapshot_xmin", lo)))
        .and(j.XID.lt(snapshotBound("pg_snapshot_xmax", hi)))
        .and(row(j.XID, j.ID).gt(p.bigint("afterXid"), p.bigint("afterId")))
        .and(visible(j.XID, hi))
        .and(not(visible(j.XID, lo)))
        // failed by an operator before any claim took it
        .andNotExists(
            selectOne()
                .from(FENCING_APPEND_OPERATED)
                .where(FENCING_APPEND_OPERATED.JOB_ID.eq(j.ID)))
        .orderBy(j.XID, j.ID)
        .limit(p.integer("limit"));
  }

  private static Query moveQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendWindow w = FENCING_APPEND_WINDOW;
    return dsl.update(w)
        .set(w.LO, p.varchar("lo"))
        .set(w.HI, p.varchar("hi"))
        .set(w.AFTER_XID, p.bigint("afterXid"))
        .set(w.AFTER_ID, p.bigint("afterId"))
        .where(w.QUEUE.eq(p.varchar("queue")));
  }

  /** The xmin of a snapshot in its text form, {@code xmin:xmax:xip,...}. */
  static long xmin(String snapshot) {
    return Long.parseLong(snapshot.substring(0, snapshot.indexOf(':')));
  }

  /** {@code function} ({@code pg_snapshot_xmin} or {@code _xmax}) of a snapshot, as a bigint. */
  static Field<Long> snapshotBound(String function, Field<String> snapshot) {
    return field(function + "({0}::pg_snapshot)::text::bigint", SQLDataType.BIGINT, snapshot);
  }

  /** Whether transaction {@code xid} is visible in {@code snapshot}: it had committed then. */
  static Condition visible(Field<Long> xid, Field<String> snapshot) {
    return field(
            "pg_visible_in_snapshot({0}::text::xid8, {1}::pg_snapshot)",
            SQLDataType.BOOLEAN, xid, snapshot)
        .isTrue();
  }

  /**
   * Which jobs of the queue whose window is {@code window} (null if it has none: no claim took a
   * fresh job yet) are fresh, waiting for their first hand-out: after the window's position, and
   * not failed (or requeued) by an operator before any claim, which done (or requeue) holds.
   */
  static Condition fresh(FencingAppendJob j, @Nullable Record4<String, String, Long, Long> window) {
    Condition notOperated =
        notExists(
            selectOne()
                .from(FENCING_APPEND_OPERATED)
                .where(FENCING_APPEND_OPERATED.JOB_ID.eq(j.ID)));
    if (window == null) {
      return notOperated;
    }
    String lo = window.value1();
    String hi = window.value2();
    return j.XID
        .ge(snapshotBound("pg_snapshot_xmin", val(lo)))
        .and(not(visible(j.XID, val(lo))))
        .and(
            or(not(visible(j.XID, val(hi))), row(j.XID, j.ID).gt(window.value3(), window.value4())))
        .and(notOperated);
  }
}
