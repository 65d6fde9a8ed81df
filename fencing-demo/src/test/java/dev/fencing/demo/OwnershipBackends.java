package dev.fencing.demo;

import dev.fencing.Acquisition;
import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.process.OwnershipBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * PostgreSQL ownership and receiver for the producer property suite, as a user builds them, and
 * three broken variants that the suite must catch, each with one guard taken out.
 */
final class OwnershipBackends {

  private OwnershipBackends() {}

  /** The real thing. */
  public static class Postgres implements OwnershipBackend {
    @Override
    public ResourceOwnership ownership(String address, DataSource database) {
      return PostgresFencing.builder(database).schema(address).build().ownership();
    }

    @Override
    public FencedReceiver receiver(DataSource dataSource, String schema) {
      return new PostgresBackend().receiver(dataSource, schema);
    }
  }

  /** Broken: a renewal always succeeds, even for an ownership a newer epoch took over. */
  public static final class RenewsWhatItLost extends Postgres {
    @Override
    public ResourceOwnership ownership(String address, DataSource database) {
      return new Forwarding(super.ownership(address, database)) {
        @Override
        public OwnershipRenewal renew(Ownership ownership, Duration leaseLength) {
          return new OwnershipRenewal.Renewed(ownership);
        }
      };
    }
  }

  /** Broken: acquiring a held resource hands out the holder's epoch again. */
  public static final class AcquiresOverTheHolder extends Postgres {
    @Override
    public ResourceOwnership ownership(String address, DataSource database) {
      return new Forwarding(super.ownership(address, database)) {
        @Override
        public Acquisition acquire(String resource, String owner, Duration leaseLength) {
          Acquisition acquisition = super.acquire(resource, owner, leaseLength);
          return acquisition instanceof Acquisition.Held held
              ? new Acquisition.Acquired(
                  new Ownership(resource, owner, held.epoch(), Instant.now().plus(leaseLength)))
              : acquisition;
        }
      };
    }
  }

  /** Broken: the receiver accepts every epoch. */
  public static final class ReceiverWithoutEpochCheck extends Postgres {
    @Override
    public FencedReceiver receiver(DataSource dataSource, String schema) {
      return new FencedReceiver() {
        @Override
        public dev.fencing.FencedOutcome fence(String key, dev.fencing.Epoch epoch) {
          throw new UnsupportedOperationException("this test double does not fence");
        }

        @Override
        public FencedOutcome deliver(String key, Epoch epoch, String payload) {
          return new FencedOutcome.Accepted(key, epoch, false);
        }

        @Override
        public Optional<Receipt> newest(String key) {
          return Optional.empty();
        }
      };
    }
  }

  /** Passes every call to the real ownership. */
  private static class Forwarding implements ResourceOwnership {
    private final ResourceOwnership real;

    Forwarding(ResourceOwnership real) {
      this.real = real;
    }

    @Override
    public Acquisition acquire(String resource, String owner, Duration leaseLength) {
      return real.acquire(resource, owner, leaseLength);
    }

    @Override
    public OwnershipRenewal renew(Ownership ownership, Duration leaseLength) {
      return real.renew(ownership, leaseLength);
    }

    @Override
    public FencedOutcome release(Ownership ownership) {
      return real.release(ownership);
    }

    @Override
    public Optional<Acquisition.Held> holder(String resource) {
      return real.holder(resource);
    }

    @Override
    public void close() {
      real.close();
    }
  }
}
