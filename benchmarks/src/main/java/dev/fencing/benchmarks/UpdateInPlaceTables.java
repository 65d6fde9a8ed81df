package dev.fencing.benchmarks;

import static dev.fencing.benchmarks.RetentionVariant.AUTOVACUUM;
import static dev.fencing.benchmarks.RetentionVariant.DEFAULT_STORAGE;
import static dev.fencing.benchmarks.RetentionVariant.MAINTENANCE;

import dev.fencing.internal.Validate;
import dev.fencing.postgres.PostgresFencing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Today's engine's job table for {@link RetentionBenchmark}: one row per job, updated by the claim
 * and the commit.
 *
 * <p>Aging: in chunks, three statements, each its own transaction as a real claim and commit are:
 * an INSERT of pending jobs on the measured queue, an UPDATE to running that writes the columns a
 * claim writes (status, owner, owners, epoch, attempts, lease_expires_at, last_event, claim_token,
 * updated_at), and an UPDATE to completed that writes the columns {@code complete} writes (status,
 * result, lease_expires_at, finished_at, last_event, updated_at). Every version of every row thus
 * enters the same indexes as in production and leaves the same dead tuples and dead index entries
 * behind.
 */
final class UpdateInPlaceTables implements AgedTables {

  @Override
  public Names names() {
    return new Names(
        "## Retention: claim cost as the table ages",
        "bench_retention",
        MAINTENANCE,
        AUTOVACUUM,
        DEFAULT_STORAGE);
  }

  @Override
  public PostgresFencing.Builder builder(DataSource ds, String schema) {
    return PostgresFencing.builder(ds)
        .schema(schema)
        .engine(PostgresFencing.Engine.UPDATE_IN_PLACE);
  }

  /**
   * For {@code DEFAULT_STORAGE}: gives the job table PostgreSQL's default fillfactor and autovacuum
   * thresholds, as an installation had before retention set its own.
   */
  @Override
  public void prepare(DataSource ds, String schema, RetentionVariant variant) throws SQLException {
    if (variant != RetentionVariant.DEFAULT_STORAGE) {
      return;
    }
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "alter table \""
              + Validate.identifier("schema", schema)
              + "\".fencing_job reset (fillfactor, autovacuum_vacuum_scale_factor,"
              + " autovacuum_vacuum_threshold, autovacuum_analyze_scale_factor,"
              + " autovacuum_analyze_threshold)");
    }
  }

  @Override
  public void topUp(DataSource ds, String schema, String queue, int backlog) {
    long pending = BenchDatabase.pending(ds, schema, queue);
    if (pending < backlog) {
      BenchDatabase.seed(ds, schema, queue, (int) (backlog - pending));
    }
  }

  @Override
  public void age(DataSource ds, String schema, String queue, long from, long to, int chunk)
      throws SQLException {
    String table = "\"" + Validate.identifier("schema", schema) + "\".fencing_job";
    long recentFrom = to - (to - from) / 10;
    try (Connection c = ds.getConnection();
        PreparedStatement insert =
            c.prepareStatement(
                "with added as (insert into "
                    + table
                    + " (queue, payload) select ?, '{}'::jsonb from generate_series(1, ?)"
                    + " returning id) select min(id), max(id) from added");
        PreparedStatement claim =
            c.prepareStatement(
                "update "
                    + table
                    + " set status = 'running', owner = ?,"
                    + " owners = (owners || ?::varchar)[greatest(cardinality(owners) + 2 - 16, 1):],"
                    + " epoch = epoch + 1, attempts = attempts + 1,"
                    + " lease_expires_at = now() + interval '5 minutes', last_event = 'claimed',"
                    + " claim_token = gen_random_uuid(), updated_at = now()"
                    + " where id between ? and ? and status = 'pending'");
        PreparedStatement complete =
            c.prepareStatement(
                "update "
                    + table
                    + " set status = 'completed', result = '{}'::jsonb, lease_expires_at = null,"
                    + " finished_at = case when id >= ? then now() else now() - interval '1 day' end,"
                    + " last_event = 'completed',"
                    + " updated_at = now()"
                    + " where id between ? and ? and status = 'running'")) {
      c.setAutoCommit(true);
      for (long done = from; done < to; ) {
        int n = (int) Math.min(chunk, to - done);
        long first;
        long last;
        insert.setString(1, queue);
        insert.setInt(2, n);
        try (ResultSet r = insert.executeQuery()) {
          r.next();
          first = r.getLong(1);
          last = r.getLong(2);
        }
        claim.setString(1, "aging");
        claim.setString(2, "aging");
        claim.setLong(3, first);
        claim.setLong(4, last);
        claim.executeUpdate();
        // ids of one insert are consecutive here: nothing else inserts while the table ages
        complete.setLong(1, first + Math.max(0, recentFrom - done));
        complete.setLong(2, first);
        complete.setLong(3, last);
        complete.executeUpdate();
        done += n;
      }
    }
  }

  @Override
  public String jobTable() {
    return "fencing_job";
  }

  @Override
  public Storage storage(DataSource ds, String schema) throws SQLException {
    String s = Validate.identifier("schema", schema);
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      // make the dead-tuple estimate current
      st.execute("select pg_stat_clear_snapshot()");
      try (ResultSet r =
          st.executeQuery(
              "select (select count(*) from \""
                  + s
                  + "\".fencing_job),"
                  + " (select n_dead_tup from pg_stat_user_tables"
                  + " where relid = '\""
                  + s
                  + "\".fencing_job'::regclass),"
                  + " pg_total_relation_size('\""
                  + s
                  + "\".fencing_job'),"
                  + " pg_relation_size('\""
                  + s
                  + "\".fencing_job_pending_ix'),"
                  + " pg_relation_size('\""
                  + s
                  + "\".fencing_job_running_ix')")) {
        r.next();
        return new Storage(
            r.getLong(1),
            String.format(
                Locale.ROOT,
                " %,d | %,d | %.1f | %.2f | %.2f",
                r.getLong(1),
                r.getLong(2),
                r.getLong(3) / 1e6,
                r.getLong(4) / 1e6,
                r.getLong(5) / 1e6),
            "");
      }
    }
  }

  @Override
  public String storageHeader() {
    return " live rows | dead tuples | table MB | pending_ix MB | running_ix MB";
  }

  @Override
  public String storageSeparator() {
    return "---:|---:|---:|---:|---:";
  }

  @Override
  public String describe(RetentionSettings settings) {
    return String.format(
        Locale.ROOT,
        "Aged tables were aged in bulk SQL, chunks of %,d jobs, each chunk inserted, claimed"
            + " and completed in three transactions; all but the newest tenth of each aging"
            + " step finished a day ago. `maintenance`: PostgresMaintenance rounds in a loop"
            + " (keepFinished 1 min, batch %,d, VACUUM every 10 s) during aging and"
            + " measurement. `autovacuum only`: no maintenance, the schema's storage settings"
            + " (fillfactor 90, autovacuum after 10,000 dead versions); `, default storage`:"
            + " those reset to PostgreSQL's defaults (autovacuum after 20 %% dead), as before"
            + " retention. `long transaction`: another"
            + " connection holds a REPEATABLE READ snapshot, taken by a read of the job table,"
            + " over the warm-up and the window. Rows, dead tuples (PostgreSQL's estimate) and"
            + " sizes are taken after the window; table MB includes indexes and TOAST.",
        settings.chunk(),
        settings.batch());
  }
}
