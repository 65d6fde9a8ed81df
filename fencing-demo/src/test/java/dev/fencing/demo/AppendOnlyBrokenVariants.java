package dev.fencing.demo;

import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.testkit.fault.ForwardingQueue;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@link BrokenVariants} on the append-only engine (docs/ENGINE.md): each removes exactly the same
 * guard, written against the engine's own tables ({@code fencing_append_*}), so that the suite
 * proves each guard load-bearing on this engine too. Test code only.
 */
final class AppendOnlyBrokenVariants {

  private AppendOnlyBrokenVariants() {}

  /**
   * Complete without the compare-and-set on the claim row: any lease's result ends the job. As on
   * today's engine, the job ends at its newest hand-out's epoch and owner, with the result that
   * arrived, and is no longer waiting to be claimed again.
   */
  public static final class NoCompareAndSet extends AppendOnlyPostgresBackend {
    @Override
    public FencedQueue queue(DataSource ds, String schema) {
      String s = "\"" + schema + "\".";
      String sql =
          "with requeued as (delete from "
              + s
              + "fencing_append_requeue where job_id = ?)"
              + " insert into "
              + s
              + "fencing_append_done (job_id, queue, epoch, status, owner, attempts, result)"
              + " select h.job_id, j.queue, h.epoch, 'completed', c.owner, h.attempt, ?::jsonb"
              + " from "
              + s
              + "fencing_append_handout h join "
              + s
              + "fencing_append_job j on j.id = h.job_id join "
              + s
              + "fencing_append_claim c on c.id = h.claim_id"
              + " where h.job_id = ? order by h.epoch desc limit 1"
              + " on conflict (job_id) do update set status = 'completed',"
              + " result = excluded.result, finished_at = now()";
      return new ForwardingQueue(super.queue(ds, schema)) {
        @Override
        public FencedOutcome.Accepted complete(Lease lease, String result) {
          BrokenVariants.update(ds, sql, lease.jobId(), result, lease.jobId());
          return new FencedOutcome.Accepted(lease.key(), lease.epoch(), false);
        }
      };
    }
  }

  /** The receiver of {@link BrokenVariants.NoReceiverEpochCheck}: the last arrival wins. */
  public static final class NoReceiverEpochCheck extends AppendOnlyPostgresBackend {
    @Override
    public FencedReceiver receiver(DataSource ds, String schema) {
      return BrokenVariants.NoReceiverEpochCheck.wrap(super.receiver(ds, schema), ds, schema);
    }
  }

  /**
   * A claim that does not raise the job's epoch: after the real claim, each job handed out again
   * gets its previous hand-out's epoch back (in its hand-out row and its claim row's {@code
   * epochs}), and its lease carries it. The previous hand-out row goes, since a job has one
   * hand-out per epoch. A job's first hand-out keeps epoch 1, as on today's broken engine.
   */
  public static final class NoIncrementOnClaim extends AppendOnlyPostgresBackend {
    @Override
    public FencedQueue queue(DataSource ds, String schema) {
      return new ForwardingQueue(super.queue(ds, schema)) {
        @Override
        public Optional<Job> claim(String queue, String owner, Duration leaseLength) {
          return claimBatch(queue, owner, leaseLength, 1).stream().findFirst();
        }

        @Override
        public List<Job> claimBatch(
            String queue, String owner, Duration leaseLength, int batchSize) {
          List<Job> jobs = new ArrayList<>();
          for (Job job : super.claimBatch(queue, owner, leaseLength, batchSize)) {
            jobs.add(keepPreviousEpoch(ds, schema, job));
          }
          return jobs;
        }
      };
    }

    private static Job keepPreviousEpoch(DataSource ds, String schema, Job job) {
      String s = "\"" + schema + "\".";
      long id = job.id();
      long epoch = job.epoch().value();
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(false);
        try {
          long previous =
              first(
                  c,
                  "select coalesce(max(epoch), 0) from "
                      + s
                      + "fencing_append_handout where job_id = ? and epoch < ?",
                  id,
                  epoch);
          if (previous == 0) {
            c.commit();
            return job;
          }
          run(
              c,
              "delete from " + s + "fencing_append_handout where job_id = ? and epoch = ?",
              id,
              previous);
          run(
              c,
              "update " + s + "fencing_append_handout set epoch = ? where job_id = ? and epoch = ?",
              previous,
              id,
              epoch);
          run(
              c,
              "update "
                  + s
                  + "fencing_append_claim set epochs[array_position(job_ids, ?::bigint)] = ?"
                  + " where id = (select claim_id from "
                  + s
                  + "fencing_append_handout where job_id = ? and epoch = ?)",
              id,
              previous,
              id,
              previous);
          c.commit();
          Lease lease = job.lease();
          return new Job(
              new Lease(id, lease.owner(), Epoch.of(previous), lease.expiresAt()),
              job.queue(),
              job.payload(),
              job.attempt());
        } catch (SQLException e) {
          c.rollback();
          throw e;
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * The compare-and-set on the claim row checks the owner but not the epoch: a lease whose owner
   * holds the job's newest hand-out writes as that hand-out (its live, unexpired claim row, the job
   * neither done nor waiting), so an owner's older lease still commits or renews after the same
   * owner reclaimed the job. complete and renew are replaced (fail and release keep the real
   * guard); completeAll and renewAll loop them.
   */
  public static final class NoEpochInCompareAndSet extends AppendOnlyPostgresBackend {
    @Override
    public FencedQueue queue(DataSource ds, String schema) {
      return wrap(super.queue(ds, schema), ds, schema);
    }

    /** Returns {@code real} with the epoch left out of its compare-and-sets. */
    static FencedQueue wrap(FencedQueue real, DataSource ds, String schema) {
      String s = "\"" + schema + "\".";
      String newest =
          "select h.epoch, c.owner from "
              + s
              + "fencing_append_handout h join "
              + s
              + "fencing_append_claim c on c.id = h.claim_id"
              + " where h.job_id = ? order by h.epoch desc limit 1";
      return new ForwardingQueue(real) {
        @Override
        public FencedOutcome.Accepted complete(Lease lease, String result) {
          Optional<Lease> mine = newestOfOwner(ds, newest, lease);
          if (mine.isPresent()) {
            try {
              FencedOutcome.Accepted accepted = super.complete(mine.get(), result);
              return new FencedOutcome.Accepted(lease.key(), lease.epoch(), accepted.repeat());
            } catch (FencedOffException e) {
              // not the owner's either: the real queue says why the lease is refused
            }
          }
          return super.complete(lease, result);
        }

        @Override
        public Lease renew(Lease lease, Duration leaseLength) {
          Optional<Lease> mine = newestOfOwner(ds, newest, lease);
          if (mine.isPresent()) {
            try {
              Lease renewed = super.renew(mine.get(), leaseLength);
              return new Lease(lease.jobId(), lease.owner(), lease.epoch(), renewed.expiresAt());
            } catch (FencedOffException e) {
              // not the owner's either: the real queue says why the lease is refused
            }
          }
          return super.renew(lease, leaseLength);
        }
      };
    }

    /**
     * The lease of the job's newest hand-out if its claim row has {@code lease}'s owner and another
     * epoch.
     */
    private static Optional<Lease> newestOfOwner(DataSource ds, String sql, Lease lease) {
      try (Connection c = ds.getConnection();
          PreparedStatement s = c.prepareStatement(sql)) {
        s.setLong(1, lease.jobId());
        try (ResultSet r = s.executeQuery()) {
          if (!r.next()
              || r.getLong(1) == lease.epoch().value()
              || !lease.owner().equals(r.getString(2))) {
            return Optional.empty();
          }
          return Optional.of(
              new Lease(lease.jobId(), lease.owner(), Epoch.of(r.getLong(1)), lease.expiresAt()));
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static long first(Connection c, String sql, Object... values) throws SQLException {
    try (PreparedStatement s = prepare(c, sql, values);
        ResultSet r = s.executeQuery()) {
      r.next();
      return r.getLong(1);
    }
  }

  private static void run(Connection c, String sql, Object... values) throws SQLException {
    try (PreparedStatement s = prepare(c, sql, values)) {
      s.executeUpdate();
    }
  }

  private static PreparedStatement prepare(Connection c, String sql, Object... values)
      throws SQLException {
    PreparedStatement s = c.prepareStatement(sql);
    try {
      for (int i = 0; i < values.length; i++) {
        s.setObject(i + 1, values[i]);
      }
      return s;
    } catch (SQLException e) {
      s.close();
      throw e;
    }
  }

  /** {@link BrokenVariants.NoRunningLimit}: claims that do not count the running limit. */
  public static final class NoRunningLimit extends AppendOnlyPostgresBackend {
    @Override
    public FencedQueue queue(DataSource ds, String schema) {
      return BrokenVariants.NoRunningLimit.wrap(super.queue(ds, schema));
    }
  }
}
