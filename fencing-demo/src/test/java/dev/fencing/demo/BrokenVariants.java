package dev.fencing.demo;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.QueueLimits;
import dev.fencing.internal.Validate;
import dev.fencing.testkit.fault.ForwardingQueue;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * The deliberately broken backends: each removes exactly one guard of the protocol. They live in
 * test code only, and exist so that the suite proves each guard is load-bearing. They rewrite the
 * update-in-place engine's statements on {@code fencing_job}, so each runs its queue on that engine
 * ({@link UpdateInPlacePostgresBackend}), not on the default; {@link AppendOnlyBrokenVariants}
 * removes the same guards on the append-only engine.
 */
final class BrokenVariants {

  private BrokenVariants() {}

  /** Complete without the owner+epoch compare-and-set: any lease's result lands. */
  public static final class NoCompareAndSet extends UpdateInPlacePostgresBackend {
    @Override
    public FencedQueue queue(DataSource ds, String schema) {
      return new ForwardingQueue(super.queue(ds, schema)) {
        @Override
        public FencedOutcome.Accepted complete(Lease lease, String result) {
          update(
              ds,
              "update \""
                  + schema
                  + "\".fencing_job set status = 'completed', result = ?::jsonb,"
                  + " finished_at = now() where id = ?",
              result,
              lease.jobId());
          return new FencedOutcome.Accepted(lease.key(), lease.epoch(), false);
        }
      };
    }
  }

  /** A receiver that keeps whatever arrives last, whatever its epoch. */
  public static final class NoReceiverEpochCheck extends UpdateInPlacePostgresBackend {
    @Override
    public FencedReceiver receiver(DataSource ds, String schema) {
      return wrap(super.receiver(ds, schema), ds, schema);
    }

    /** Returns {@code real} keeping whatever arrives last; its receipts are read as they are. */
    static FencedReceiver wrap(FencedReceiver real, DataSource ds, String schema) {
      return new FencedReceiver() {
        @Override
        public dev.fencing.FencedOutcome fence(String key, dev.fencing.Epoch epoch) {
          throw new UnsupportedOperationException("this test double does not fence");
        }

        @Override
        public FencedOutcome deliver(String key, Epoch epoch, String payload) {
          update(
              ds,
              "insert into \""
                  + schema
                  + "\".fencing_receipt (receiver, key, epoch, payload)"
                  + " values ('default', ?, ?, ?::jsonb) on conflict (receiver, key) do update"
                  + " set epoch = excluded.epoch, payload = excluded.payload",
              key,
              epoch.value(),
              payload);
          return new FencedOutcome.Accepted(key, epoch, false);
        }

        @Override
        public Optional<Receipt> newest(String key) {
          return real.newest(key);
        }
      };
    }
  }

  /** A claim that does not bump the epoch: every owner of a job holds epoch 1. */
  public static final class NoIncrementOnClaim extends UpdateInPlacePostgresBackend {
    @Override
    public FencedQueue queue(DataSource ds, String schema) {
      return new ForwardingQueue(super.queue(ds, schema)) {
        @Override
        public Optional<Job> claim(String queue, String owner, Duration leaseLength) {
          String table = "\"" + schema + "\".fencing_job";
          String sql =
              "update "
                  + table
                  + " set status = 'running', owner = ?, epoch = greatest(epoch, 1),"
                  + " attempts = attempts + 1, last_event = 'claimed',"
                  + " lease_expires_at = now() + (? * interval '1 millisecond')"
                  + " where id = (select id from "
                  + table
                  + " where queue = ? and"
                  + " ((status = 'pending' and run_at <= now()) or (status = 'running' and"
                  + " lease_expires_at <= now())) order by run_at, id limit 1"
                  + " for update skip locked)"
                  + " returning id, payload::text, epoch, attempts, lease_expires_at";
          try (Connection c = ds.getConnection();
              PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, owner);
            s.setLong(2, leaseLength.toMillis());
            s.setString(3, queue);
            try (ResultSet r = s.executeQuery()) {
              if (!r.next()) {
                return Optional.empty();
              }
              Lease lease =
                  new Lease(
                      r.getLong(1), owner, Epoch.of(r.getLong(3)), r.getTimestamp(5).toInstant());
              return Optional.of(new Job(lease, queue, r.getString(2), r.getInt(4)));
            }
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        }
      };
    }
  }

  /**
   * Compare-and-set on job, owner, running and unexpired, but without {@code epoch = :epoch}: an
   * owner's older lease still commits after the same owner reclaimed the job. complete and renew
   * are replaced (fail and release keep the real guard); completeAll and renewAll loop them.
   */
  public static final class NoEpochInCompareAndSet extends UpdateInPlacePostgresBackend {
    @Override
    public FencedQueue queue(DataSource ds, String schema) {
      return wrap(super.queue(ds, schema), ds, schema);
    }

    /**
     * Returns {@code real}, a queue on the update-in-place engine, with the epoch left out of its
     * compare-and-sets.
     */
    static FencedQueue wrap(FencedQueue real, DataSource ds, String schema) {
      String table = "\"" + schema + "\".fencing_job";
      String owns =
          " where id = ? and owner = ? and status = 'running' and lease_expires_at > now()";
      return new ForwardingQueue(real) {
        @Override
        public FencedOutcome.Accepted complete(Lease lease, String result) {
          int n;
          try {
            n =
                update(
                    ds,
                    "update "
                        + table
                        + " set status = 'completed', result = ?::jsonb, lease_expires_at = null,"
                        + " finished_at = now(), last_event = 'completed'"
                        + owns,
                    result,
                    lease.jobId(),
                    lease.owner());
          } catch (IllegalStateException e) {
            // a result the store refuses: let the real queue say so
            return super.complete(lease, result);
          }
          return n == 1
              ? new FencedOutcome.Accepted(lease.key(), lease.epoch(), false)
              : super.complete(lease, result);
        }

        @Override
        public Lease renew(Lease lease, Duration leaseLength) {
          Validate.leaseLength(leaseLength);
          return renewed(
                  ds,
                  "update "
                      + table
                      + " set lease_expires_at = now() + (? * interval '1 microsecond'),"
                      + " last_event = 'renewed'"
                      + owns
                      + " returning lease_expires_at",
                  leaseLength,
                  lease.jobId(),
                  lease.owner())
              .map(end -> new Lease(lease.jobId(), lease.owner(), lease.epoch(), end))
              .orElseGet(() -> super.renew(lease, leaseLength));
        }
      };
    }
  }

  /**
   * Claims that do not count the running limit: {@code setLimits} is accepted and {@code limits}
   * reads it back, but the limit is kept in the calling process and never reaches the store, so
   * every claim takes jobs as on a queue without one. The guard removed is the count of the queue's
   * valid slots under its lock before a claim hands out ({@code RunningLimits.claim}); it is what a
   * limit counted in the worker amounts to for every other process.
   */
  public static final class NoRunningLimit extends UpdateInPlacePostgresBackend {
    @Override
    public FencedQueue queue(DataSource ds, String schema) {
      return wrap(super.queue(ds, schema));
    }

    /** Returns {@code real} with its limits kept here instead of in the store. */
    static FencedQueue wrap(FencedQueue real) {
      Map<String, QueueLimits> kept = new ConcurrentHashMap<>();
      return new ForwardingQueue(real) {
        @Override
        public QueueLimits limits(String queue) {
          return kept.getOrDefault(queue, QueueLimits.NONE);
        }

        @Override
        public QueueLimits setLimits(String queue, QueueLimits limits) {
          QueueLimits before = kept.put(queue, limits);
          return before == null ? QueueLimits.NONE : before;
        }
      };
    }
  }

  /**
   * A renewal that does not check that the lease is still valid: a zombie whose lease ran out, and
   * whose job nobody took over, renews it and holds its job again, although a claim counted its
   * slot free when the lease ran out. The guard removed is the renewal's {@code lease_expires_at >
   * now()} (under a running limit, judged at {@code clock_timestamp()} after the limit's lock, see
   * {@code RunningLimits}); the owner, epoch and status stay checked.
   *
   * <p>On this engine only. The append-only engine's claim takes over the claim rows whose leases
   * ran out that it finds, whole ({@code Reclaims}: the row is no longer live, its jobs handed out
   * again or requeued), also when it hands out another job; so there the zombie's renewal after a
   * claim took its slot is refused by the row's {@code live}, with or without the check of the
   * lease's end. The same variant written for that engine kept the limit on this counterexample
   * (its renewal was refused) and on a fresh-seed search of 200 tries.
   */
  public static final class NoExpiryCheckOnRenewal extends UpdateInPlacePostgresBackend {
    @Override
    public FencedQueue queue(DataSource ds, String schema) {
      String sql =
          "update \""
              + schema
              + "\".fencing_job set lease_expires_at = now() + (? * interval '1 microsecond'),"
              + " last_event = 'renewed' where id = ? and owner = ? and epoch = ?"
              + " and status = 'running' returning lease_expires_at";
      return renewingWith(super.queue(ds, schema), ds, sql);
    }

    /**
     * Returns {@code real} renewing by {@code sql} (parameters: microseconds, job, owner, epoch;
     * returns the new end), and by the real queue when {@code sql} changes nothing.
     */
    static FencedQueue renewingWith(FencedQueue real, DataSource ds, String sql) {
      return new ForwardingQueue(real) {
        @Override
        public Lease renew(Lease lease, Duration leaseLength) {
          Validate.leaseLength(leaseLength);
          return renewed(ds, sql, leaseLength, lease.jobId(), lease.owner(), lease.epoch().value())
              .map(end -> new Lease(lease.jobId(), lease.owner(), lease.epoch(), end))
              .orElseGet(() -> super.renew(lease, leaseLength));
        }
      };
    }
  }

  /**
   * Runs a renewal statement whose parameters are the lease's length in microseconds and then
   * {@code values}, and which returns the lease's new end; empty when it changed no row.
   */
  static Optional<Instant> renewed(
      DataSource ds, String sql, Duration leaseLength, Object... values) {
    try (Connection c = ds.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setLong(1, leaseLength.toNanos() / 1_000);
      for (int i = 0; i < values.length; i++) {
        s.setObject(i + 2, values[i]);
      }
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? Optional.of(r.getTimestamp(1).toInstant()) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Runs one statement on its own and returns the number of rows it changed. */
  static int update(DataSource ds, String sql, Object... values) {
    try (Connection c = ds.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < values.length; i++) {
        s.setObject(i + 1, values[i]);
      }
      return s.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
