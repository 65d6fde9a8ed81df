package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.testkit.db.PostgresFixture;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link EngineSpike}'s {@code log} engine: the append-only prototype, in plain SQL (schema {@code
 * spike_log}). Jobs are inserted once and never updated; a claim takes the next jobs of the queue's
 * window between two snapshots into one claim row with the lease, the owner and the epoch, and a
 * commit checks that row (compare-and-set) and appends one completion row per job.
 */
final class LogEnginePrototype implements SpikeEngine {

  private static final String SCHEMA =
      """
      create table job (
        id bigint generated always as identity primary key,
        queue text not null,
        payload jsonb not null,
        xid xid8 not null default pg_current_xact_id(),
        created_at timestamptz not null default now());
      create index job_window on job (queue, xid, id);
      create table job_window_cursor (
        queue text primary key,
        lo pg_snapshot not null,
        hi pg_snapshot not null,
        after_xid xid8 not null,
        after_id bigint not null) with (fillfactor = 30);
      create sequence claim_epoch;
      create table claim (
        epoch bigint primary key,
        queue text not null,
        owner text not null,
        lease_expires_at timestamptz not null,
        job_ids bigint[] not null,
        open integer not null) with (fillfactor = 70);
      create index claim_expiry on claim (queue, lease_expires_at) where open > 0;
      create table done (
        job_id bigint primary key,
        epoch bigint not null,
        result jsonb not null,
        finished_at timestamptz not null default now());

      -- the next jobs of the queue's window, at most n, in one new claim row
      create function claim(q text, o text, lease interval, n integer)
          returns table (job_id bigint, epoch bigint) language plpgsql
          set search_path = spike_log as $$
      #variable_conflict use_column
      declare
        c job_window_cursor%rowtype;
        ids bigint[] := '{}';
        more bigint[];
        last_xid xid8;
        last_id bigint;
        e bigint;
      begin
        select * into c from job_window_cursor w where w.queue = q for update;
        if not found then
          -- the first window: every job committed so far (nothing is visible in '3:3:')
          insert into job_window_cursor values (q, '3:3:', pg_current_snapshot(), '0', 0)
            on conflict do nothing;
          select * into c from job_window_cursor w where w.queue = q for update;
        end if;
        for round in 1..2 loop
          select coalesce(array_agg(w.id order by w.xid, w.id), '{}'),
                 (array_agg(w.xid order by w.xid desc, w.id desc))[1],
                 (array_agg(w.id order by w.xid desc, w.id desc))[1]
            into more, last_xid, last_id
            from (select j.id, j.xid from job j
                   where j.queue = q and (j.xid, j.id) > (c.after_xid, c.after_id)
                     and j.xid < pg_snapshot_xmax(c.hi)
                     and pg_visible_in_snapshot(j.xid, c.hi)
                     and not pg_visible_in_snapshot(j.xid, c.lo)
                   order by j.xid, j.id limit n - cardinality(ids)) w;
          ids := ids || more;
          if last_xid is not null then
            c.after_xid := last_xid;
            c.after_id := last_id;
          end if;
          exit when cardinality(ids) >= n or round = 2;
          -- the window is spent: the next one is what committed since its end
          c.lo := c.hi;
          c.hi := pg_current_snapshot();
          c.after_xid := pg_snapshot_xmin(c.lo);
          c.after_id := 0;
        end loop;
        update job_window_cursor set lo = c.lo, hi = c.hi, after_xid = c.after_xid, after_id = c.after_id
          where job_window_cursor.queue = q;
        if cardinality(ids) = 0 then
          return;
        end if;
        e := nextval('claim_epoch');
        insert into claim values (e, q, o, now() + lease, ids, cardinality(ids));
        return query select unnest(ids), e;
      end $$;

      -- the compare-and-set on the claim row, then one completion row per job
      create function complete(e bigint, o text, ids bigint[], results jsonb[])
          returns integer language plpgsql set search_path = spike_log as $$
      begin
        update claim set open = open - cardinality(ids)
          where claim.epoch = e and claim.owner = o and claim.lease_expires_at > now();
        if not found then
          return 0;
        end if;
        insert into done (job_id, epoch, result)
          select unnest(ids), e, unnest(results) on conflict do nothing;
        return cardinality(ids);
      end $$;
      """;

  private HikariDataSource pool;

  @Override
  public String name() {
    return "log";
  }

  @Override
  public void install(PostgresFixture.Database db, HikariDataSource pool) throws SQLException {
    db.recreateSchema("spike_log");
    this.pool = pool;
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("set search_path to spike_log");
      s.execute(SCHEMA);
      s.execute("reset search_path");
    }
  }

  @Override
  public void enqueue(int count) throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "insert into spike_log.job (queue, payload)"
                    + " select ?, '{}'::jsonb from generate_series(1, ?)")) {
      s.setString(1, QUEUE);
      s.setInt(2, count);
      s.executeUpdate();
    }
  }

  /** Every claimed job was claimed once and completed once, and none was skipped. */
  @Override
  public String verify(long committed) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "select (select coalesce(sum(cardinality(job_ids)), 0) from spike_log.claim),"
                    + " (select count(distinct j) from spike_log.claim, unnest(job_ids) j),"
                    + " (select count(*) from spike_log.done),"
                    + " (select count(*) from spike_log.job j where not exists"
                    + "   (select 1 from spike_log.done d where d.job_id = j.id)"
                    + "   and j.id < (select max(d.job_id) from spike_log.done d))")) {
      r.next();
      long claimed = r.getLong(1);
      long distinct = r.getLong(2);
      long completed = r.getLong(3);
      long skipped = r.getLong(4);
      List<String> wrong = new ArrayList<>();
      if (claimed != distinct) {
        wrong.add((claimed - distinct) + " jobs claimed twice");
      }
      // one producer commits its batches in turn, so jobs are handed out in id order: a job
      // below the newest completed one that was never handed out was skipped
      if (skipped > 0) {
        wrong.add(skipped + " jobs skipped (never claimed, below the newest completion)");
      }
      if (completed != committed || completed != claimed) {
        wrong.add("claimed " + claimed + ", completed " + completed + ", reported " + committed);
      }
      System.out.printf(
          "log: %d claimed, %d completed, %d not completed below the newest completion%n",
          claimed, completed, skipped);
      return String.join("; ", wrong);
    }
  }

  @Override
  public int claimAndCommit(String owner, int n) throws SQLException {
    List<Long> ids = new ArrayList<>(n);
    long epoch = 0;
    try (Connection c = pool.getConnection()) {
      try (PreparedStatement s =
          c.prepareStatement(
              "select job_id, epoch from spike_log.claim(?, ?, interval '30 seconds', ?)")) {
        s.setString(1, QUEUE);
        s.setString(2, owner);
        s.setInt(3, n);
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            ids.add(r.getLong(1));
            epoch = r.getLong(2);
          }
        }
      }
      if (ids.isEmpty()) {
        return 0;
      }
      String[] results = new String[ids.size()];
      java.util.Arrays.fill(results, "{}");
      try (PreparedStatement s =
          c.prepareStatement("select spike_log.complete(?, ?, ?, ?::jsonb[])")) {
        Array idArray = c.createArrayOf("bigint", ids.toArray());
        Array resultArray = c.createArrayOf("text", results);
        s.setLong(1, epoch);
        s.setString(2, owner);
        s.setArray(3, idArray);
        s.setArray(4, resultArray);
        try (ResultSet r = s.executeQuery()) {
          r.next();
          return r.getInt(1);
        }
      }
    }
  }
}
