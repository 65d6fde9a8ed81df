package dev.fencing.postgres.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.Query;

/**
 * A hot statement, built with jOOQ's type-safe DSL and rendered once, then executed many times
 * through JDBC. jOOQ would render the SQL again on every call, which costs about as much client
 * time as the round trip itself on the single-job path.
 */
final class RenderedSql {

  /** A named parameter as jOOQ renders it; a cast ({@code ::jsonb}) is not one. */
  private static final Pattern NAMED = Pattern.compile("(?<![:\\w]):([a-z_0-9]+)");

  private final String sql;
  private final List<String> names = new ArrayList<>();

  RenderedSql(DSLContext dsl, Query query) {
    Matcher m = NAMED.matcher(dsl.renderNamedParams(query));
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      names.add(m.group(1));
      m.appendReplacement(out, "?");
    }
    m.appendTail(out);
    this.sql = out.toString();
  }

  /** Prepares the statement on {@code connection} with {@code values} bound by name. */
  PreparedStatement prepare(Connection connection, Map<String, Object> values) throws SQLException {
    PreparedStatement statement = connection.prepareStatement(sql);
    try {
      for (int i = 0; i < names.size(); i++) {
        Object value = values.get(names.get(i));
        if (value == null) {
          throw new IllegalStateException("no value for :" + names.get(i) + " in " + sql);
        }
        statement.setObject(i + 1, value);
      }
      return statement;
    } catch (SQLException | RuntimeException e) {
      statement.close();
      throw e;
    }
  }

  @Override
  public String toString() {
    return sql;
  }
}
