package dev.fencing.demo;

import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Reads the outbox table itself, so that a test sees every row a commit wrote, sent or not. */
public final class OutboxRows {

  private OutboxRows() {}

  /** Returns every outbox row of {@code schema} as {@code job@epoch}, oldest first. */
  public static List<String> of(TestSchema schema) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = schema.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT job_id, epoch FROM \"" + schema.name() + "\".fencing_outbox ORDER BY id");
        ResultSet r = s.executeQuery()) {
      while (r.next()) {
        rows.add(r.getLong(1) + "@" + r.getLong(2));
      }
    }
    return rows;
  }
}
