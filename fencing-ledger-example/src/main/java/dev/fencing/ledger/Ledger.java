package dev.fencing.ledger;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The ledger of seed 002: accounts with a balance, debited by producers that own the account. Per
 * account it keeps the newest epoch it has seen and the next sequence number within that epoch, and
 * applies a debit, checks its epoch and marks its request done in one transaction. A debit from an
 * older epoch is refused and changes nothing; the same (epoch, sequence) again is a repeat that
 * changes nothing (a producer retrying after a lost acknowledgement).
 *
 * <p>The producers' work is a table of debit requests. A request is done when a debit for it was
 * applied; a new owner first {@linkplain #fence registers its epoch}, so that anything the previous
 * owner sends from then on is refused, and only then reads what is left to do.
 */
public final class Ledger {

  private final DataSource dataSource;
  private final String schema;
  private final boolean checkEpochs;

  private Ledger(DataSource dataSource, String schema, boolean checkEpochs) {
    this.dataSource = dataSource;
    // The schema is written into the SQL below, so only a plain lower-case identifier is accepted.
    if (schema == null || !schema.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new IllegalArgumentException(
          "schema must be a plain lower-case identifier, but was "
              + (schema == null ? "null" : "'" + schema + "'"));
    }
    this.schema = schema;
    this.checkEpochs = checkEpochs;
  }

  /** Returns the ledger in {@code schema}. */
  public static Ledger of(DataSource dataSource, String schema) {
    return new Ledger(dataSource, schema, true);
  }

  /** Returns a broken ledger that applies every debit whatever its epoch, to show what breaks. */
  public static Ledger withoutEpochCheck(DataSource dataSource, String schema) {
    return new Ledger(dataSource, schema, false);
  }

  /** Creates the ledger's tables if they are missing. */
  public void install() {
    inTransaction(
        c -> {
          try (Statement s = c.createStatement()) {
            s.execute("create schema if not exists " + schema);
            s.execute(
                "create table if not exists "
                    + schema
                    + ".accounts (account text primary key, balance bigint not null,"
                    + " epoch bigint not null default 0, next_seq bigint not null default 0)");
            s.execute(
                "create table if not exists "
                    + schema
                    + ".requests (id bigint generated always as identity primary key,"
                    + " account text not null references "
                    + schema
                    + ".accounts, amount bigint not null check (amount > 0),"
                    + " done boolean not null default false)");
            s.execute(
                "create table if not exists "
                    + schema
                    + ".entries (account text not null, epoch bigint not null, seq bigint not null,"
                    + " request_id bigint not null, amount bigint not null, owner text not null,"
                    + " primary key (account, epoch, seq))");
          }
          return null;
        });
  }

  /** Opens {@code account} with {@code balance}. */
  public void open(String account, long balance) {
    update(
        "insert into " + schema + ".accounts (account, balance) values (?, ?)", account, balance);
  }

  /** Adds a request to debit {@code amount} from {@code account}. */
  public void request(String account, long amount) {
    update("insert into " + schema + ".requests (account, amount) values (?, ?)", account, amount);
  }

  /**
   * Registers {@code epoch} as the account's newest, unless a newer one is registered: from now on
   * every debit from an older epoch is refused.
   *
   * @return accepted, or superseded by the newer epoch
   */
  public FencedOutcome fence(String account, Epoch epoch) {
    return inTransaction(
        c -> {
          long current = lockAccount(c, account);
          if (epoch.value() < current) {
            return new FencedOutcome.Superseded(account, epoch, Epoch.of(current), null);
          }
          if (epoch.value() > current) {
            update(
                c,
                "update " + schema + ".accounts set epoch = ?, next_seq = 0 where account = ?",
                epoch.value(),
                account);
          }
          return new FencedOutcome.Accepted(account, epoch, epoch.value() == current);
        });
  }

  /** Returns the oldest request for {@code account} not yet done. */
  public Optional<Request> nextRequest(String account) {
    return inTransaction(
        c -> {
          try (PreparedStatement s =
              c.prepareStatement(
                  "select id, amount from "
                      + schema
                      + ".requests where account = ? and not done order by id limit 1")) {
            s.setString(1, account);
            try (ResultSet r = s.executeQuery()) {
              return r.next()
                  ? Optional.of(new Request(r.getLong(1), account, r.getLong(2)))
                  : Optional.<Request>empty();
            }
          }
        });
  }

  /** A request to debit {@code amount} from {@code account}. */
  public record Request(long id, String account, long amount) {}

  /**
   * Debits the request's amount from its account as message {@code seq} of {@code epoch}, and marks
   * the request done, in one transaction.
   *
   * @return accepted (a repeat if this epoch already sent this sequence number), or superseded by
   *     the newer epoch that owns the account
   * @throws IllegalStateException if {@code seq} skips ahead of the next expected number
   */
  public FencedOutcome debit(Request request, Epoch epoch, long seq, String owner) {
    String account = request.account();
    long requestId = request.id();
    long amount = request.amount();
    return inTransaction(
        c -> {
          long current = lockAccount(c, account);
          if (checkEpochs && epoch.value() < current) {
            return new FencedOutcome.Superseded(account, epoch, Epoch.of(current), null);
          }
          long next = epoch.value() == current ? nextSeq(c, account) : 0;
          if (checkEpochs && seq < next) {
            return new FencedOutcome.Accepted(account, epoch, true);
          }
          if (checkEpochs && seq > next) {
            throw new IllegalStateException(
                "seq must be " + next + " for " + account + " at " + epoch + ", but was " + seq);
          }
          update(
              c,
              "update "
                  + schema
                  + ".accounts set balance = balance - ?, epoch = greatest(epoch, ?),"
                  + " next_seq = ? where account = ?",
              amount,
              epoch.value(),
              seq + 1,
              account);
          update(
              c,
              "insert into "
                  + schema
                  + ".entries (account, epoch, seq, request_id, amount, owner)"
                  + " values (?, ?, ?, ?, ?, ?) on conflict do nothing",
              account,
              epoch.value(),
              seq,
              requestId,
              amount,
              owner);
          update(c, "update " + schema + ".requests set done = true where id = ?", requestId);
          return new FencedOutcome.Accepted(account, epoch, false);
        });
  }

  /** Returns every account's balance, by name. */
  public Map<String, Long> balances() {
    return inTransaction(
        c -> {
          Map<String, Long> balances = new LinkedHashMap<>();
          try (Statement s = c.createStatement();
              ResultSet r =
                  s.executeQuery(
                      "select account, balance from " + schema + ".accounts order by account")) {
            while (r.next()) {
              balances.put(r.getString(1), r.getLong(2));
            }
          }
          return balances;
        });
  }

  private long lockAccount(Connection c, String account) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "select epoch from " + schema + ".accounts where account = ? for update")) {
      s.setString(1, account);
      try (ResultSet r = s.executeQuery()) {
        if (!r.next()) {
          throw new IllegalArgumentException("account must exist, but was '" + account + "'");
        }
        return r.getLong(1);
      }
    }
  }

  private long nextSeq(Connection c, String account) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement("select next_seq from " + schema + ".accounts where account = ?")) {
      s.setString(1, account);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  private void update(String sql, Object... values) {
    inTransaction(c -> update(c, sql, values));
  }

  private static int update(Connection c, String sql, Object... values) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < values.length; i++) {
        s.setObject(i + 1, values[i]);
      }
      return s.executeUpdate();
    }
  }

  private interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T inTransaction(Work<T> work) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("ledger in schema " + schema + ": " + e.getMessage(), e);
    }
  }
}
