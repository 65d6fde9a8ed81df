package dev.fencing;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What happened to one fenced write: a commit of a job's result or a delivery to a receiver. Either
 * it was {@link Accepted}, or it was refused for one of the reasons of {@link Refused}, each with
 * what a log line needs (the epoch that tried, and what won).
 *
 * @since 0.1
 */
public sealed interface FencedOutcome extends CommitOutcome
    permits FencedOutcome.Accepted, FencedOutcome.Refused {

  /** The job id (in decimal) or resource key the write was for. */
  @Override
  String key();

  /** The epoch that tried to write. */
  @Override
  Epoch epoch();

  /** Returns whether the write was accepted. */
  default boolean isAccepted() {
    return this instanceof Accepted;
  }

  /** Checks what every outcome has: the key and the epoch. */
  private static void require(String key, Epoch epoch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(epoch, "epoch");
  }

  /** Checks the key, the epoch and the outcome's own component {@code name}. */
  private static void require(String key, Epoch epoch, String name, Object value) {
    require(key, epoch);
    Objects.requireNonNull(value, name);
  }

  /**
   * The write took effect.
   *
   * @param repeat true when the same epoch had already written, so this was a retry of the same
   *     call (for a commit: the row already held this epoch's result, e.g. after a lost
   *     acknowledgement)
   */
  record Accepted(String key, Epoch epoch, boolean repeat) implements FencedOutcome {
    public Accepted {
      require(key, epoch);
    }
  }

  /**
   * The write was refused and nothing changed; the caller's work for this epoch counts for nothing.
   */
  sealed interface Refused extends FencedOutcome
      permits Superseded, LeaseExpired, NotOwner, AlreadyFinished, Removed, Cancelled {}

  /**
   * A newer epoch owns the key: the job was reclaimed, or the receiver already accepted a newer
   * epoch.
   *
   * @param current the newest epoch, the one that won
   * @param currentOwner the job's current owner, or null at a receiver (which knows no owners)
   */
  record Superseded(String key, Epoch epoch, Epoch current, @Nullable String currentOwner)
      implements Refused {
    public Superseded {
      require(key, epoch, "current", current);
    }
  }

  /**
   * The lease ran out and nobody has reclaimed the job yet. Refused all the same: after expiry any
   * worker may take the job at any moment, so late work is never allowed to land.
   *
   * @param expiredAt when the lease ran out, on the database clock
   */
  record LeaseExpired(String key, Epoch epoch, Instant expiredAt) implements Refused {
    public LeaseExpired {
      require(key, epoch, "expiredAt", expiredAt);
    }
  }

  /**
   * The lease names an owner or epoch the job never had at that epoch (a forged or corrupted
   * lease).
   *
   * @param owner the owner the lease named
   * @param current the job's epoch, or null if it was never claimed
   * @param currentOwner the job's owner, or null if none
   */
  record NotOwner(
      String key, Epoch epoch, String owner, @Nullable Epoch current, @Nullable String currentOwner)
      implements Refused {
    public NotOwner {
      require(key, epoch, "owner", owner);
    }
  }

  /**
   * This very lease already finished the job differently (completed with another result, failed, or
   * released), so this write would contradict what was recorded.
   *
   * @param state the state the job is in now
   */
  record AlreadyFinished(String key, Epoch epoch, JobState state) implements Refused {
    public AlreadyFinished {
      require(key, epoch, "state", state);
    }
  }

  /**
   * The job is gone: it finished, and retention (or an operator's purge) removed it after its
   * retention time, so there is nothing left to write to. Only a worker stalled for longer than the
   * job's whole retention time meets this; its write counts for nothing, like any refusal.
   */
  record Removed(String key, Epoch epoch) implements Refused {
    public Removed {
      require(key, epoch);
    }
  }

  /**
   * The job was cancelled (see {@link FencedQueue#cancel(long, String)}) while this lease held it,
   * or before: the lease was ended by the cancel, and no write of it is accepted after.
   *
   * @param reason the reason the cancel gave, or null if none
   */
  record Cancelled(String key, Epoch epoch, @Nullable String reason) implements Refused {
    public Cancelled {
      require(key, epoch);
    }
  }
}
