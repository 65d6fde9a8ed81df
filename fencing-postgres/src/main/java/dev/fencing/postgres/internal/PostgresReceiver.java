package dev.fencing.postgres.internal;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.StoreUnavailableException;
import dev.fencing.internal.Deliveries;
import dev.fencing.internal.Validate;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the newest receipt per (receiver, key) in {@code fencing_receipt}, on the queue's
 * connections and retries. Each delivery, and each fence, is one statement, so it is atomic across
 * processes, and safe to retry: the same epoch again is a repeat. Every key PostgreSQL text can
 * hold is a valid key: {@link Validate#key} already refuses the NUL character that it cannot.
 */
final class PostgresReceiver implements FencedReceiver {

  /**
   * {@code prev} locks the row and reads its newest committed epoch (READ COMMITTED re-reads a
   * concurrently updated row), so it is both the epoch a repeat is judged by and the one that won a
   * refusal. The update also requires {@code prev}: if the row was committed by someone else after
   * this statement's snapshot, nothing is written and both columns come back null, and the caller
   * runs the statement again. {@code %2$s} is what the update sets besides the epoch: the payload
   * for a delivery, nothing for a fence (which keeps the payload, and inserts JSON null).
   */
  private static final String WRITE =
      """
      WITH prev AS (
        SELECT r.epoch FROM %1$s r WHERE r.receiver = ? AND r.key = ? FOR UPDATE
      ), up AS (
        INSERT INTO %1$s AS r (receiver, key, epoch, payload) VALUES (?, ?, ?, ?::jsonb)
        ON CONFLICT (receiver, key) DO UPDATE
          SET epoch = excluded.epoch,%2$s updated_at = now()
          WHERE r.epoch <= excluded.epoch AND EXISTS (SELECT 1 FROM prev)
        RETURNING r.epoch
      )
      SELECT (SELECT epoch FROM prev) AS previous, (SELECT epoch FROM up) AS written
      """;

  /** The payload a fence leaves on a key never delivered to. */
  private static final String NO_PAYLOAD = "null";

  private static final String NEWEST =
      "SELECT epoch, payload::text FROM %1$s WHERE receiver = ? AND key = ?";

  /** Rows are never deleted, so a second run always sees the row that raced the first. */
  private static final int MAX_RUNS = 3;

  private final Jdbc jdbc;
  private final String description;
  private final String name;
  private final String deliverSql;
  private final String fenceSql;
  private final String newestSql;

  /**
   * @param schema a validated plain identifier
   * @param name a validated plain identifier
   */
  PostgresReceiver(Jdbc jdbc, String schema, String name) {
    this.jdbc = jdbc;
    this.name = name;
    this.description = "receiver '" + name + "' in schema " + schema;
    // schema passed Validate.identifier: [a-z_][a-z0-9_]*, so quoting it is complete
    String table = "\"" + schema + "\".fencing_receipt";
    this.deliverSql = WRITE.formatted(table, " payload = excluded.payload,");
    this.fenceSql = WRITE.formatted(table, "");
    this.newestSql = NEWEST.formatted(table);
  }

  @Override
  public FencedOutcome deliver(String key, Epoch epoch, String payload) {
    Deliveries.check(key, epoch, payload);
    try {
      return write(deliverSql, key, epoch, payload);
    } catch (StoreUnavailableException e) {
      SQLException refused = refusedPayload(e);
      if (refused != null) {
        throw new IllegalArgumentException(
            "payload must be JSON that PostgreSQL can store as jsonb ("
                + reason(refused)
                + "), but was "
                + Validate.quote(payload),
            e);
      }
      throw e;
    }
  }

  @Override
  public FencedOutcome fence(String key, Epoch epoch) {
    Deliveries.fence(key, epoch);
    return write(fenceSql, key, epoch, NO_PAYLOAD);
  }

  /** Runs {@code sql} ({@link #WRITE}) until it did not race, at most {@link #MAX_RUNS} times. */
  private FencedOutcome write(String sql, String key, Epoch epoch, String payload) {
    for (int run = 1; ; run++) {
      FencedOutcome outcome = jdbc.runRetried(c -> writeOnce(c, sql, key, epoch, payload));
      if (outcome != null) {
        return outcome;
      }
      if (run == MAX_RUNS) {
        throw new IllegalStateException(
            description + ": key " + Validate.quote(key) + " kept racing");
      }
    }
  }

  /**
   * The server's refusal of the payload: class 22 (data exception: {@code jsonb}'s syntax and
   * Unicode checks, or a NUL character in the text) or class 54 (program limit: nesting too deep
   * for the server's stack). Nothing else in the statement can raise them: key and name are checked
   * before, the epoch is a {@code bigint}. Neither class is transient, so it was not retried.
   */
  private static @Nullable SQLException refusedPayload(Throwable failure) {
    return Text.firstCause(
        failure, SQLException.class, e -> Text.ofClass(e, "22") || Text.ofClass(e, "54"));
  }

  /** The server's message on one line: the driver puts its detail and context on their own. */
  private static String reason(SQLException e) {
    String message = e.getMessage();
    return message == null
        ? "SQLState " + e.getSQLState()
        : String.join("; ", message.strip().lines().map(String::strip).toList());
  }

  private @Nullable FencedOutcome writeOnce(
      Connection connection, String sql, String key, Epoch epoch, String payload)
      throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(sql)) {
      s.setString(1, name);
      s.setString(2, key);
      s.setString(3, name);
      s.setString(4, key);
      s.setLong(5, epoch.value());
      s.setString(6, payload);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        Long previous = rs.getObject(1, Long.class);
        Long written = rs.getObject(2, Long.class);
        if (written != null) {
          return new FencedOutcome.Accepted(
              key, epoch, previous != null && previous == epoch.value());
        }
        if (previous != null) {
          return new FencedOutcome.Superseded(key, epoch, Epoch.of(previous), null);
        }
        return null;
      }
    }
  }

  @Override
  public Optional<Receipt> newest(String key) {
    Validate.key(key);
    return jdbc.runRetried(
        connection -> {
          try (PreparedStatement s = connection.prepareStatement(newestSql)) {
            s.setString(1, name);
            s.setString(2, key);
            try (ResultSet rs = s.executeQuery()) {
              return rs.next()
                  ? Optional.of(new Receipt(key, Epoch.of(rs.getLong(1)), rs.getString(2)))
                  : Optional.<Receipt>empty();
            }
          }
        });
  }

  @Override
  public String toString() {
    return "PostgreSQL " + description;
  }
}
