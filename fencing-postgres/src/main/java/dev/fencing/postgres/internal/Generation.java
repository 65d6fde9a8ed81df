package dev.fencing.postgres.internal;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.shl;
import static org.jooq.impl.DSL.shr;
import static org.jooq.impl.DSL.when;

import org.jooq.Field;
import org.jooq.impl.SQLDataType;

/**
 * Epochs that never go backwards across a failover.
 *
 * <p>With asynchronous replication a promoted standby may lack the last commits of the old primary:
 * a claim that raised a job to epoch 7 there may be missing on the new primary, whose next claim
 * would hand out epoch 7 again, to another owner. So an epoch carries a <em>generation</em> in its
 * high 32 bits, and every claim (and every acquisition of a resource) made in a later generation
 * starts above every epoch of an earlier one: {@code next = generation << 32 | 1} when the row's
 * epoch is from an older generation, else {@code epoch + 1}. Compared as one 64-bit number, as
 * receivers, the outbox and ownership compare epochs, the pair (generation, counter) orders first
 * by generation.
 *
 * <p>The generation is the server's timeline, less one. PostgreSQL starts a new timeline at every
 * promotion, larger than the one the standby followed; and every server of a cluster shares its
 * timeline history, so a primary's timeline only grows. A server that never failed over is on
 * timeline 1, generation 0: its epochs are 1, 2, 3... as they always were. A primary that was cut
 * off and not yet stopped still hands out epochs of its older generation, all smaller than the new
 * primary's. See {@code docs/HA.md}.
 *
 * <p>The current timeline is read from the name of the WAL file being written ({@code
 * pg_walfile_name(pg_current_wal_lsn())}, whose first 8 hex digits are the timeline); {@code
 * pg_control_checkpoint()} would lag a promotion until its first checkpoint.
 */
public final class Generation {

  /** The bits of an epoch below its generation. */
  static final int SHIFT = 32;

  /** The generation of the server the statement runs on. */
  public static final Field<Long> CURRENT =
      field(
          "(('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint - 1)",
          SQLDataType.BIGINT);

  private Generation() {}

  /** The epoch that follows {@code epoch} on this server. */
  public static Field<Long> next(Field<Long> epoch) {
    return next(epoch, CURRENT);
  }

  /** The epoch that follows {@code epoch} in {@code generation}. */
  public static Field<Long> next(Field<Long> epoch, Field<Long> generation) {
    // as bigint: PostgreSQL shifts an int4 modulo 32
    return when(
            shr(epoch.cast(SQLDataType.BIGINT), inline(SHIFT)).lt(generation), first(generation))
        .otherwise(epoch.plus(inline(1L)));
  }

  /** The first epoch of a new row on this server. */
  public static Field<Long> first() {
    return first(CURRENT);
  }

  /** The first epoch of {@code generation}. */
  public static Field<Long> first(Field<Long> generation) {
    return shl(generation.cast(SQLDataType.BIGINT), inline(SHIFT)).plus(inline(1L));
  }
}
