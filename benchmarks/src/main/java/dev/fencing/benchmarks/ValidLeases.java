package dev.fencing.benchmarks;

import dev.fencing.postgres.PostgresFencing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Counts, every {@value #EVERY_MS} ms on a connection of its own, the jobs of a queue that hold a
 * valid lease, read from the engine's own job tables (not from the running limit's slots), so that
 * a run under {@code --max-running} can show the limit held under load. Prints one line when
 * closed.
 */
final class ValidLeases implements AutoCloseable {

  /** The line {@link #close()} prints starts with this. */
  static final String LINE = "Valid leases:";

  private static final long EVERY_MS = 100;

  private final Thread sampler;
  private final int limit;
  private final AtomicLong samples = new AtomicLong();
  private final AtomicLong atLimit = new AtomicLong();
  private final AtomicLong max = new AtomicLong();
  private final AtomicReference<SQLException> failure = new AtomicReference<>();
  private volatile boolean sampling = true;

  private ValidLeases(DataSource db, String sql, String queue, int limit) {
    this.limit = limit;
    this.sampler = Thread.ofPlatform().name("valid-leases").start(() -> sample(db, sql, queue));
  }

  /** Starts counting the valid leases of {@code queue} in {@code schema}, run by {@code engine}. */
  static ValidLeases watch(
      DataSource db, String schema, PostgresFencing.Engine engine, String queue, int limit) {
    String sql =
        switch (engine) {
          case UPDATE_IN_PLACE ->
              "select count(*) from \"%s\".fencing_job where queue = ? and status = 'running'"
                  + " and lease_expires_at > clock_timestamp()";
          // a live claim's jobs, less those given back and those ended
          case APPEND_ONLY ->
              "select count(*) from \"%1$s\".fencing_append_claim c, unnest(c.job_ids) j(id)"
                  + " where c.queue = ? and c.live and c.lease_expires_at > clock_timestamp()"
                  + " and not (j.id = any(c.given_back)) and not exists"
                  + " (select 1 from \"%1$s\".fencing_append_done d where d.job_id = j.id)";
        };
    return new ValidLeases(db, sql.formatted(schema), queue, limit);
  }

  private void sample(DataSource db, String sql, String queue) {
    try (Connection c = db.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, queue);
      while (sampling) {
        try (ResultSet r = s.executeQuery()) {
          r.next();
          long n = r.getLong(1);
          samples.incrementAndGet();
          max.accumulateAndGet(n, Math::max);
          if (n >= limit) {
            atLimit.incrementAndGet();
          }
        }
        Thread.sleep(EVERY_MS);
      }
    } catch (SQLException e) {
      failure.set(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops counting and prints {@value #LINE} with the most seen, the limit and the samples. */
  @Override
  public void close() throws InterruptedException {
    sampling = false;
    sampler.join();
    if (failure.get() != null) {
      throw new IllegalStateException("counting valid leases failed: " + failure.get());
    }
    long n = samples.get();
    System.out.printf(
        Locale.ROOT,
        "%s at most %d seen (limit %d), in %d samples every %d ms, %.0f %% of them at the"
            + " limit.%n",
        LINE,
        max.get(),
        limit,
        n,
        EVERY_MS,
        n == 0 ? 0.0 : 100.0 * atLimit.get() / n);
  }
}
