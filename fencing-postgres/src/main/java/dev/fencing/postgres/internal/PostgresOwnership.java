package dev.fencing.postgres.internal;

import dev.fencing.Acquisition;
import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.ResourceOwnership;
import dev.fencing.SchemaNotInstalledException;
import dev.fencing.StoreUnavailableException;
import dev.fencing.internal.Validate;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Resource ownership on PostgreSQL: one row per resource, whose epoch is bumped by every
 * acquisition and never lowered or deleted, so it is strictly greater than every epoch handed out
 * before, whoever acquires, however many clients and database restarts lie between (the row is
 * committed). Leases are set and judged with the database clock, as a job's claim is.
 *
 * <p>Every statement is retried after a transient failure, as the queue's are. An acquire whose
 * first try committed but whose acknowledgement was lost finds its acquisition again by the call's
 * token on the row, rather than calling it held by someone else.
 */
public final class PostgresOwnership implements ResourceOwnership {

  /** An acquire reads the holder after losing; if that lease ran out meanwhile it tries again. */
  private static final int ROUNDS = 3;

  private final Jdbc jdbc;
  private final ResourceRows rows;

  @Inject
  PostgresOwnership(Jdbc jdbc, ResourceRows rows) {
    this.jdbc = jdbc;
    this.rows = rows;
  }

  @Override
  public Acquisition acquire(String resource, String owner, Duration leaseLength) {
    Validate.resource(resource);
    Validate.owner(owner);
    long micros = micros(Validate.leaseLength(leaseLength));
    UUID token = UUID.randomUUID();
    AtomicBoolean tried = new AtomicBoolean();
    try {
      Optional<ResourceRows.Row> last = Optional.empty();
      for (int round = 0; round < ROUNDS; round++) {
        Optional<ResourceRows.Granted> granted =
            jdbc.guarded(
                () -> {
                  if (tried.getAndSet(true)) {
                    Optional<ResourceRows.Granted> landed =
                        jdbc.run(c -> rows.takenBy(c, resource, owner, token));
                    if (landed.isPresent()) {
                      return landed;
                    }
                  }
                  return jdbc.run(c -> rows.take(c, resource, owner, micros, token));
                });
        if (granted.isPresent()) {
          ResourceRows.Granted g = granted.get();
          return new Acquisition.Acquired(
              new Ownership(resource, owner, Epoch.of(g.epoch()), g.expiresAt()));
        }
        last = read(resource);
        if (last.isPresent() && last.get().live()) {
          break;
        }
      }
      // Held even if that lease has run out by now: it was held when this call lost to it.
      ResourceRows.Row holder =
          last.orElseThrow(() -> new IllegalStateException("row of " + resource + " vanished"));
      return new Acquisition.Held(
          resource, holder.owner(), Epoch.of(holder.epoch()), holder.expiresAt());
    } catch (StoreUnavailableException e) {
      throw failed("acquire " + resource, e);
    }
  }

  @Override
  public OwnershipRenewal renew(Ownership ownership, Duration leaseLength) {
    Objects.requireNonNull(ownership, "ownership");
    long micros = micros(Validate.leaseLength(leaseLength));
    String resource = ownership.resource();
    try {
      Optional<Instant> extended =
          jdbc.runRetried(
              c -> rows.extend(c, resource, ownership.owner(), ownership.epoch().value(), micros));
      if (extended.isPresent()) {
        return new OwnershipRenewal.Renewed(
            new Ownership(resource, ownership.owner(), ownership.epoch(), extended.get()));
      }
      return lost(ownership, read(resource));
    } catch (StoreUnavailableException | SchemaNotInstalledException e) {
      return new OwnershipRenewal.Lost(
          ownership,
          OwnershipRenewal.Why.UNREACHABLE,
          null,
          "PostgreSQL (schema "
              + jdbc.config().schema()
              + ") could not confirm it (transient failures retried "
              + jdbc.config().transientRetries()
              + " times): "
              + StoreFailures.describe(e));
    }
  }

  @Override
  public FencedOutcome release(Ownership ownership) {
    Objects.requireNonNull(ownership, "ownership");
    String resource = ownership.resource();
    Epoch epoch = ownership.epoch();
    try {
      boolean ended = jdbc.runRetried(c -> rows.end(c, resource, ownership.owner(), epoch.value()));
      if (ended) {
        return new FencedOutcome.Accepted(resource, epoch, false);
      }
      Optional<ResourceRows.Row> row = read(resource);
      if (row.isEmpty()) {
        return new FencedOutcome.NotOwner(resource, epoch, ownership.owner(), null, null);
      }
      ResourceRows.Row now = row.get();
      Epoch current = Epoch.of(now.epoch());
      if (current.isNewerThan(epoch)) {
        return new FencedOutcome.Superseded(resource, epoch, current, now.owner());
      }
      if (current.equals(epoch) && now.owner().equals(ownership.owner())) {
        // it had ended (released, perhaps by a first try whose acknowledgement was lost, or ran
        // out)
        return new FencedOutcome.Accepted(resource, epoch, true);
      }
      return new FencedOutcome.NotOwner(resource, epoch, ownership.owner(), current, now.owner());
    } catch (StoreUnavailableException e) {
      throw failed("release " + resource + " at " + epoch, e);
    }
  }

  @Override
  public Optional<Acquisition.Held> holder(String resource) {
    Validate.resource(resource);
    try {
      return read(resource)
          .filter(ResourceRows.Row::live)
          .map(r -> new Acquisition.Held(resource, r.owner(), Epoch.of(r.epoch()), r.expiresAt()));
    } catch (StoreUnavailableException e) {
      throw failed("read the holder of " + resource, e);
    }
  }

  /** Does nothing: the data source is the caller's. Ownerships end when their leases run out. */
  @Override
  public void close() {}

  private Optional<ResourceRows.Row> read(String resource) {
    return jdbc.runRetried(c -> rows.read(c, resource));
  }

  /**
   * Why a renewal found nothing to extend: a newer epoch holds the resource (superseded), or this
   * one ended; an ownership the row never granted (another owner at this epoch, an epoch not yet
   * reached, a resource never acquired) is lost as ended, and renews nothing.
   */
  private static OwnershipRenewal lost(Ownership ownership, Optional<ResourceRows.Row> row) {
    if (row.isEmpty()) {
      return new OwnershipRenewal.Lost(
          ownership, OwnershipRenewal.Why.ENDED, null, "the resource was never acquired");
    }
    ResourceRows.Row now = row.get();
    Epoch current = Epoch.of(now.epoch());
    if (current.isNewerThan(ownership.epoch())) {
      return new OwnershipRenewal.Lost(
          ownership,
          OwnershipRenewal.Why.SUPERSEDED,
          current,
          "superseded by " + current + " of " + now.owner());
    }
    String detail =
        current.equals(ownership.epoch()) && now.owner().equals(ownership.owner())
            ? "the lease ran out or was released at " + now.expiresAt()
            : "never granted: the resource is at " + current + " of " + now.owner();
    return new OwnershipRenewal.Lost(ownership, OwnershipRenewal.Why.ENDED, current, detail);
  }

  private StoreUnavailableException failed(String what, StoreUnavailableException e) {
    return StoreFailures.of(jdbc.config()).during("could not " + what + ", the outcome unknown", e);
  }

  private static long micros(Duration leaseLength) {
    return leaseLength.toNanos() / 1_000;
  }
}
