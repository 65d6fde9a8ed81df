package dev.fencing.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** Reads the job tables directly, for what the API does not show; and counts statements. */
final class Rows {

  private Rows() {}

  /** Returns the rows {@code sql} selects (in {@code schema}), column name to value. */
  static List<Map<String, Object>> select(
      DataSource ds, String schema, String sql, Object... values) {
    try (Connection c = ds.getConnection()) {
      c.createStatement().execute("set search_path to \"" + schema + "\"");
      try (PreparedStatement s = c.prepareStatement(sql)) {
        for (int i = 0; i < values.length; i++) {
          s.setObject(i + 1, values[i]);
        }
        try (ResultSet r = s.executeQuery()) {
          ResultSetMetaData meta = r.getMetaData();
          List<Map<String, Object>> rows = new ArrayList<>();
          while (r.next()) {
            Map<String, Object> row = new LinkedHashMap<>();
            for (int k = 1; k <= meta.getColumnCount(); k++) {
              row.put(meta.getColumnName(k), r.getObject(k));
            }
            rows.add(row);
          }
          return rows;
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Returns the table {@code engine} writes one row to per job enqueued. */
  static String jobTable(PostgresFencing.Engine engine) {
    return switch (engine) {
      case UPDATE_IN_PLACE -> "fencing_job";
      case APPEND_ONLY -> "fencing_append_job";
    };
  }

  /** Returns how many jobs {@code engine}'s job table holds that match {@code where}. */
  static long jobs(
      DataSource ds, String schema, PostgresFencing.Engine engine, String where, Object... values) {
    return (long)
        select(
                ds,
                schema,
                "select count(*) as n from " + jobTable(engine) + " where " + where,
                values)
            .getFirst()
            .get("n");
  }

  /** Returns {@code ds}, counting every statement prepared or created on its connections. */
  static DataSource counting(DataSource ds, AtomicInteger statements) {
    return (DataSource)
        Proxy.newProxyInstance(
            Rows.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(ds, method, args);
              if (result instanceof Connection c) {
                return Proxy.newProxyInstance(
                    Rows.class.getClassLoader(),
                    new Class<?>[] {Connection.class},
                    (p, m, a) -> {
                      if (m.getName().equals("prepareStatement")
                          || m.getName().equals("createStatement")) {
                        statements.incrementAndGet();
                      }
                      return invoke(c, m, a);
                    });
              }
              return result;
            });
  }

  /** Calls {@code method} on {@code target}, throwing what it throws (for proxies). */
  static Object invoke(Object target, java.lang.reflect.Method method, Object[] args)
      throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
