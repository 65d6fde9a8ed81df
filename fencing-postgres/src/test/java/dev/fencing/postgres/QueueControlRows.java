package dev.fencing.postgres;

import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.stream.LongStream;

/**
 * Rows of a job in the tables of the queue controls (schema version 2) and of recorded refusals
 * (version 3), written by SQL as a library with those features writes them, for tests of what
 * removes them with the job.
 */
final class QueueControlRows {

  /** The tables that hold a job's rows of the queue controls, each with a {@code job_id}. */
  static final List<String> TABLES =
      List.of(
          "fencing_job_option",
          "fencing_cancel",
          "fencing_parked",
          "fencing_limit_slot",
          "fencing_refusal");

  private QueueControlRows() {}

  /** Writes a row of job {@code jobId} of {@code queue} in each of {@link #TABLES}. */
  static void insert(TestSchema schema, long jobId, String queue) throws SQLException {
    for (String sql :
        List.of(
            "insert into %s.fencing_job_option (job_id, queue, priority) values (?, ?, 5)",
            "insert into %s.fencing_cancel (job_id, queue, fence_epoch, was, reason)"
                + " values (?, ?, 2, 'running', 'test')",
            "insert into %s.fencing_parked (job_id, queue, priority, ready_at)"
                + " values (?, ?, 5, now())",
            "insert into %s.fencing_limit_slot (job_id, queue, grp, epoch) values (?, ?, '', 1)",
            // ? || '' uses the queue parameter, so every statement binds the same two
            "insert into %s.fencing_refusal (job_id, epoch, owner, action, kind, reason)"
                + " values (?, 1, ? || '', 'complete', 'Superseded', 'test')")) {
      try (Connection c = schema.dataSource().getConnection();
          PreparedStatement s = c.prepareStatement(String.format(sql, schema.name()))) {
        s.setLong(1, jobId);
        s.setString(2, queue);
        s.executeUpdate();
      }
    }
  }

  /** Each job that has a row in any of {@link #TABLES}, as often as it has one, in id order. */
  static List<Long> jobs(TestSchema schema) throws SQLException {
    String union =
        String.join(
            " union all ",
            TABLES.stream().map(t -> "select job_id from " + schema.name() + "." + t).toList());
    return SchemaRows.rows(schema, "select job_id from (" + union + ") j order by job_id").stream()
        .map(Long::valueOf)
        .toList();
  }

  /** What {@link #jobs} reads when each of {@code ids}, and no other job, has its rows. */
  static List<Long> rowsOf(long... ids) {
    return LongStream.of(ids)
        .boxed()
        .flatMap(id -> Collections.nCopies(TABLES.size(), id).stream())
        .toList();
  }
}
