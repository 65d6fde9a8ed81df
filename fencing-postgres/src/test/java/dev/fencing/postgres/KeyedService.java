package dev.fencing.postgres;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * A third party that knows nothing of epochs but deduplicates on the idempotency key, as payment
 * services do: every call is logged in {@code keyed_calls}; only the first call with a key takes
 * effect in {@code keyed_effects}. It lives in tables so that a relay in another JVM and the test
 * see one service.
 */
final class KeyedService {

  private KeyedService() {}

  static void install(DataSource ds, String schema) {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "create table " + schema + ".keyed_calls (n serial primary key, key text not null)");
      s.execute(
          "create table "
              + schema
              + ".keyed_effects (key text primary key, payload text not null)");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Calls the service with the envelope's idempotency key; a key seen before changes nothing. */
  static FencedOutcome call(DataSource ds, String schema, FencedOutbox.Envelope envelope) {
    try (Connection c = ds.getConnection()) {
      try (PreparedStatement log =
          c.prepareStatement("insert into " + schema + ".keyed_calls (key) values (?)")) {
        log.setString(1, envelope.idempotencyKey());
        log.executeUpdate();
      }
      try (PreparedStatement effect =
          c.prepareStatement(
              "insert into "
                  + schema
                  + ".keyed_effects (key, payload) values (?, ?) on conflict (key) do nothing")) {
        effect.setString(1, envelope.idempotencyKey());
        effect.setString(2, envelope.payload());
        boolean first = effect.executeUpdate() == 1;
        return new FencedOutcome.Accepted(envelope.key(), envelope.epoch(), !first);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
