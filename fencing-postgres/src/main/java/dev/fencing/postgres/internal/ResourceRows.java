package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_RESOURCE;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.val;

import dev.fencing.postgres.internal.jooq.tables.FencingResource;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.Field;

/**
 * The statements on the resource table, one each, judged on the database clock ({@code
 * current_timestamp}, as a job claim is). A row is never deleted: the epoch of a resource only
 * grows.
 */
final class ResourceRows {

  private static final FencingResource R = FENCING_RESOURCE;

  private final Jdbc jdbc;

  @Inject
  ResourceRows(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * A resource's row as read.
   *
   * @param live whether its lease had not run out, on the database clock
   */
  record Row(String owner, long epoch, Instant expiresAt, boolean live) {}

  /**
   * An acquisition as committed.
   *
   * @param epoch its epoch
   * @param expiresAt its lease's end on the database clock
   */
  record Granted(long epoch, Instant expiresAt) {}

  /**
   * Takes the resource if nobody holds it: inserts the generation's first epoch (1 on a server that
   * never failed over), or bumps the epoch of a row whose lease ran out. Concurrent callers are
   * serialised by the row lock, and a waiter re-checks the lease on the row the winner wrote, so
   * exactly one of them gets it. Empty if it is held.
   */
  Optional<Granted> take(
      Connection c, String resource, String owner, long leaseMicros, UUID token) {
    return jdbc.on(c)
        .insertInto(R)
        .set(R.NAME, resource)
        .set(R.OWNER, owner)
        .set(R.EPOCH, Generation.first())
        .set(R.LEASE_EXPIRES_AT, LeaseSql.nowPlusMicros(val(leaseMicros)))
        .set(R.ACQUIRED_AT, currentOffsetDateTime())
        .set(R.ACQUIRE_TOKEN, token)
        .onConflict(R.NAME)
        .doUpdate()
        .set(R.EPOCH, Generation.next(R.EPOCH))
        .set(R.OWNER, owner)
        .set(R.LEASE_EXPIRES_AT, LeaseSql.nowPlusMicros(val(leaseMicros)))
        .set(R.ACQUIRED_AT, currentOffsetDateTime())
        .set(R.ACQUIRE_TOKEN, token)
        .where(R.LEASE_EXPIRES_AT.le(currentOffsetDateTime()))
        .returning(R.EPOCH, R.LEASE_EXPIRES_AT)
        .fetchOptional()
        .map(r -> new Granted(r.getEpoch(), r.getLeaseExpiresAt().toInstant()));
  }

  /**
   * The acquisition the call with {@code token} committed, if one did (its acknowledgement may have
   * been lost) and nobody took the resource since.
   */
  Optional<Granted> takenBy(Connection c, String resource, String owner, UUID token) {
    return jdbc.on(c)
        .select(R.EPOCH, R.LEASE_EXPIRES_AT)
        .from(R)
        .where(R.NAME.eq(resource))
        .and(R.OWNER.eq(owner))
        .and(R.ACQUIRE_TOKEN.eq(token))
        .fetchOptional()
        .map(r -> new Granted(r.value1(), r.value2().toInstant()));
  }

  /** Reads the resource's row, whether or not its lease ran out. */
  Optional<Row> read(Connection c, String resource) {
    return jdbc.on(c)
        .select(R.OWNER, R.EPOCH, R.LEASE_EXPIRES_AT, live())
        .from(R)
        .where(R.NAME.eq(resource))
        .fetchOptional()
        .map(r -> new Row(r.value1(), r.value2(), r.value3().toInstant(), r.value4()));
  }

  /**
   * Extends the lease of the ownership (resource, owner, epoch) to now plus {@code leaseMicros} if
   * it still holds; empty if it does not.
   */
  Optional<Instant> extend(
      Connection c, String resource, String owner, long epoch, long leaseMicros) {
    return jdbc.on(c)
        .update(R)
        .set(R.LEASE_EXPIRES_AT, LeaseSql.nowPlusMicros(val(leaseMicros)))
        .where(holds(resource, owner, epoch))
        .returning(R.LEASE_EXPIRES_AT)
        .fetchOptional()
        .map(r -> r.getLeaseExpiresAt().toInstant());
  }

  /**
   * Ends the ownership (resource, owner, epoch) now if it still holds, keeping owner and epoch;
   * returns whether it did.
   */
  boolean end(Connection c, String resource, String owner, long epoch) {
    return jdbc.on(c)
            .update(R)
            .set(R.LEASE_EXPIRES_AT, currentOffsetDateTime())
            .where(holds(resource, owner, epoch))
            .execute()
        == 1;
  }

  /** The compare-and-set of renew and release: this very ownership, and its lease unexpired. */
  private static Condition holds(String resource, String owner, long epoch) {
    return R.NAME
        .eq(resource)
        .and(R.OWNER.eq(owner))
        .and(R.EPOCH.eq(epoch))
        .and(R.LEASE_EXPIRES_AT.gt(currentOffsetDateTime()));
  }

  private static Field<Boolean> live() {
    return field(R.LEASE_EXPIRES_AT.gt(currentOffsetDateTime()));
  }
}
