package dev.fencing.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Executions and times of the claim, the batched commit and the enqueue from pg_stat_statements
 * (n/a where the extension is not installed), and the table's dead rows and analyzes. Reads the
 * counters without the statements' texts, which would cost the server hundreds of milliseconds a
 * window; a text is read once per statement, the first time its id shows up.
 */
final class LoadPgStats {
  /** What the texts of the claim, the batched commit and the enqueue contain. */
  private static final String[] KINDS = {
    "\"expired\"", "cast(\"v_result\" as jsonb)", "fencing_job\" (\"queue\""
  };

  private final Connection connection;
  private final String schema;
  private final String tables;
  private final Map<Long, Integer> kindOf = new HashMap<>();
  private boolean statements = true;

  /**
   * Reads the counters of {@code schema}; dead rows and analyzes are summed over the tables whose
   * names are {@code tables} (a {@code like} pattern: the engine's job tables).
   */
  LoadPgStats(Connection connection, String schema, String tables) {
    this.connection = connection;
    this.schema = schema;
    this.tables = tables;
  }

  /** Per kind of statement, its calls and milliseconds so far; the table's state. */
  record Sample(long[] calls, double[] millis, long deadRows, long analyzes) {
    /** Mean milliseconds per call of each kind since {@code before}, joined by " / ". */
    String meanMillis(Sample before) {
      StringBuilder means = new StringBuilder();
      for (int k = 0; k < KINDS.length; k++) {
        long n = calls[k] - before.calls[k];
        means.append(k == 0 ? "" : " / ");
        means.append(
            calls[k] < 0 || n <= 0 || millis[k] < before.millis[k]
                ? "n/a" // none, or counters evicted by pg_stat_statements.max meanwhile
                : String.format(Locale.ROOT, "%.2f", (millis[k] - before.millis[k]) / n));
      }
      return means.toString();
    }
  }

  Sample sample() throws SQLException {
    long[] calls = new long[KINDS.length];
    double[] millis = new double[KINDS.length];
    Arrays.fill(calls, -1);
    if (statements) {
      try {
        Arrays.fill(calls, 0);
        counters(calls, millis);
      } catch (SQLException e) {
        statements = false; // not installed here: the columns show n/a
        Arrays.fill(calls, -1);
      }
    }
    try (PreparedStatement s =
        connection.prepareStatement(
            "select sum(n_dead_tup), sum(analyze_count + autoanalyze_count), count(*)"
                + " from pg_stat_user_tables where schemaname = ? and relname like ?")) {
      s.setString(1, schema);
      s.setString(2, tables);
      try (ResultSet r = s.executeQuery()) {
        return r.next() && r.getLong(3) > 0
            ? new Sample(calls, millis, r.getLong(1), r.getLong(2))
            : new Sample(calls, millis, -1, -1);
      }
    }
  }

  private void counters(long[] calls, double[] millis) throws SQLException {
    List<long[]> rows = new ArrayList<>();
    List<Double> times = new ArrayList<>();
    try (PreparedStatement s =
            connection.prepareStatement(
                "select queryid, calls, total_exec_time from pg_stat_statements(false)"
                    + " where dbid = (select oid from pg_database where datname ="
                    + " current_database()) and queryid is not null");
        ResultSet r = s.executeQuery()) {
      while (r.next()) {
        rows.add(new long[] {r.getLong(1), r.getLong(2)});
        times.add(r.getDouble(3));
      }
    }
    List<Long> unknown = new ArrayList<>();
    for (long[] row : rows) {
      if (!kindOf.containsKey(row[0])) {
        unknown.add(row[0]);
      }
    }
    if (!unknown.isEmpty()) {
      classify(unknown);
    }
    for (int i = 0; i < rows.size(); i++) {
      int kind = kindOf.getOrDefault(rows.get(i)[0], -1);
      if (kind >= 0) {
        calls[kind] += rows.get(i)[1];
        millis[kind] += times.get(i);
      }
    }
  }

  private void classify(List<Long> ids) throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "select queryid, query from pg_stat_statements where queryid = any(?)")) {
      s.setArray(1, connection.createArrayOf("bigint", ids.toArray()));
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          kindOf.put(r.getLong(1), kind(r.getString(2)));
        }
      }
    }
    for (long id : ids) {
      kindOf.putIfAbsent(id, -1);
    }
  }

  private int kind(String query) {
    for (int k = 0; k < KINDS.length; k++) {
      if (query.contains("\"" + schema + "\"") && query.contains(KINDS[k])) {
        return k;
      }
    }
    return -1;
  }
}
