package com.example.invoices;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * "Another project"'s own receiver: the service that sends invoices keeps, per invoice, the newest
 * epoch it has sent for, in a table of its own, and refuses older epochs in one statement.
 */
final class InvoiceReceiver implements FencedReceiver {

  private final DataSource dataSource;
  private final String table;

  InvoiceReceiver(DataSource dataSource, String schema) {
    this.dataSource = dataSource;
    this.table = "\"" + schema + "\".sent_invoice";
    execute(
        "create table if not exists "
            + table
            + " (invoice_key text primary key, epoch bigint not null, body jsonb not null)");
  }

  @Override
  public FencedOutcome deliver(String key, Epoch epoch, String payload) {
    return raise(key, epoch, payload, "body = excluded.body");
  }

  /** Raises the invoice to {@code epoch} without sending: its body stays (JSON null if none). */
  @Override
  public FencedOutcome fence(String key, Epoch epoch) {
    return raise(key, epoch, "null", "body = s.body");
  }

  private FencedOutcome raise(String key, Epoch epoch, String payload, String body) {
    String upsert =
        "insert into "
            + table
            + " as s values (?, ?, ?::jsonb) on conflict (invoice_key) do update"
            + " set epoch = excluded.epoch, "
            + body
            + " where s.epoch <= excluded.epoch returning epoch";
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(upsert)) {
      s.setString(1, key);
      s.setLong(2, epoch.value());
      s.setString(3, payload);
      try (ResultSet r = s.executeQuery()) {
        if (r.next()) {
          return new FencedOutcome.Accepted(key, epoch, false);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    Epoch newer = newest(key).map(Receipt::epoch).orElseThrow();
    return new FencedOutcome.Superseded(key, epoch, newer, null);
  }

  @Override
  public Optional<Receipt> newest(String key) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select epoch, body::text from " + table + " where invoice_key = ?")) {
      s.setString(1, key);
      try (ResultSet r = s.executeQuery()) {
        return r.next()
            ? Optional.of(new Receipt(key, Epoch.of(r.getLong(1)), r.getString(2)))
            : Optional.empty();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void execute(String sql) {
    try (Connection c = dataSource.getConnection()) {
      c.createStatement().execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
