package dev.fencing.postgres;

import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Plain SQL on a test's schema, for what the schema records of itself (its versions, its engine)
 * and for leaving it as an earlier build did. Each statement is formatted with the schema's name
 * for {@code %s}.
 */
final class SchemaRows {

  /**
   * What {@link #versions} reads of a schema this jar migrated: one row per script it ships, each
   * an expand step ({@code compatible_from} 1). {@code SchemaVersionsTest} checks it against {@link
   * PostgresFencing#migrations()}, so that a new script is added here once.
   */
  static final List<String> EVERY_VERSION =
      List.of("1 fencing schema 1", "2 queue controls 1", "3 refusals 1");

  private SchemaRows() {}

  /** The schema's versions, oldest first, each as {@code "version description compatible_from"}. */
  static List<String> versions(TestSchema schema) throws SQLException {
    return rows(
        schema,
        "select version || ' ' || description || ' ' || compatible_from"
            + " from %s.fencing_schema_version order by version");
  }

  /** The first column of every row {@code sql} selects. */
  static List<String> rows(TestSchema schema, String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(String.format(sql, schema.name()))) {
      while (r.next()) {
        rows.add(r.getString(1));
      }
    }
    return rows;
  }

  /** The first column of the first row {@code sql} selects. */
  static String scalar(TestSchema schema, String sql) throws SQLException {
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(String.format(sql, schema.name()))) {
      r.next();
      return r.getString(1);
    }
  }

  /** Runs {@code sql}. */
  static void execute(TestSchema schema, String sql) throws SQLException {
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(String.format(sql, schema.name()));
    }
  }
}
