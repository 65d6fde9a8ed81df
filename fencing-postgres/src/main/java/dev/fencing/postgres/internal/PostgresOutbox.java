package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_OUTBOX;
import static org.jooq.impl.DSL.currentOffsetDateTime;

import dev.fencing.Epoch;
import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.internal.Batches;
import dev.fencing.internal.OutcomeNames;
import dev.fencing.postgres.internal.jooq.tables.FencingOutbox;
import dev.fencing.postgres.internal.jooq.tables.records.FencingOutboxRecord;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * The outbox relay on PostgreSQL. Each message is sent in a transaction of its own that locks its
 * row ({@code FOR UPDATE SKIP LOCKED}), so two relays never send one message at once, and records
 * the outcome before committing. A relay that dies after sending and before that commit leaves the
 * row undelivered and unlocked (the database ends the dead connection's transaction), and the next
 * relay sends the message again: at least once.
 */
final class PostgresOutbox implements FencedOutbox {

  private final Jdbc jdbc;

  @Inject
  PostgresOutbox(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  public List<Relayed> relay(String destination, Sender sender, int max) {
    return Batches.relay(
        destination, sender, max, () -> jdbc.transaction(c -> relayOne(c, destination, sender)));
  }

  private Optional<Relayed> relayOne(Connection c, String destination, Sender sender) {
    FencingOutbox o = FENCING_OUTBOX;
    DSLContext dsl = jdbc.on(c);
    FencingOutboxRecord row =
        dsl.selectFrom(o)
            .where(o.DESTINATION.eq(destination))
            .and(o.DELIVERED_AT.isNull())
            .orderBy(o.ID)
            .limit(1)
            .forUpdate()
            .skipLocked()
            .fetchOne();
    if (row == null) {
      return Optional.empty();
    }
    Envelope envelope =
        new Envelope(
            row.getJobId(),
            row.getIdx(),
            Epoch.of(row.getEpoch()),
            row.getDestination(),
            row.getReceiverKey(),
            row.getPayload().data());
    FencedOutcome outcome =
        Objects.requireNonNull(sender.send(envelope), "the sender returned no outcome");
    dsl.update(o)
        .set(o.DELIVERED_AT, currentOffsetDateTime())
        .set(o.OUTCOME, OutcomeNames.of(outcome))
        .set(o.WON_EPOCH, wonEpoch(outcome))
        .where(o.ID.eq(row.getId()))
        .execute();
    return Optional.of(new Relayed(envelope, outcome));
  }

  private static @Nullable Long wonEpoch(FencedOutcome outcome) {
    return outcome instanceof FencedOutcome.Superseded s ? s.current().value() : null;
  }
}
