package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobOptions;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A V1 library on a V2 schema (a rolling upgrade) never hands out a job that needs V2: one with a
 * priority waits where V1's claims do not look, and one to run later waits where V1's own retry
 * path keeps it until its time. Here V1's claims are run as V1 wrote them: the update-in-place
 * engine's scan of pending jobs, and the append-only engine's fresh claim ({@code
 * fencing_append_claim_fresh}, whose body V2 keeps) and its scan of due requeue rows.
 */
@FencingDatabase
class V1ClaimsSkipJobsWithOptionsTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void theInPlacePendingScanOfV1SkipsJobsWithAPriorityOrARunTimeAhead(TestSchema schema)
      throws SQLException {
    FencedQueue queue = queue(schema, PostgresFencing.Engine.UPDATE_IN_PLACE);
    long plain = queue.enqueue("q", "{}");
    long ranked = queue.enqueue("q", "{}", JobOptions.ofPriority(5));
    queue.enqueue("q", "{}", JobOptions.after(Duration.ofHours(1)));
    String pending =
        "select id from \""
            + schema.name()
            + "\".fencing_job where queue = 'q' and status = 'pending' and run_at <= now()"
            + " order by run_at, id";
    assertThat(ids(schema, pending)).containsExactly(plain);

    // a retry keeps the job where V1 does not look
    Job first = queue.claim("q", "w", LONG).orElseThrow();
    assertThat(first.id()).isEqualTo(ranked);
    queue.fail(first.lease(), "boom", Duration.ZERO);
    assertThat(ids(schema, pending)).containsExactly(plain);
  }

  @Test
  void theAppendOnlyFreshClaimOfV1HandsOutOnlyPlainJobs(TestSchema schema) throws SQLException {
    FencedQueue queue = queue(schema, PostgresFencing.Engine.APPEND_ONLY);
    assertThat(queue.claim("q", "w", LONG)).as("a first claim makes the window").isEmpty();
    long plain = queue.enqueue("q", "{}");
    long ranked = queue.enqueue("q", "{}", JobOptions.ofPriority(5));
    queue.enqueue("q", "{}", JobOptions.after(Duration.ofHours(1)));
    String dueRequeued =
        "select job_id from \""
            + schema.name()
            + "\".fencing_append_requeue where queue = 'q' and ready_at <= now()";
    assertThat(ids(schema, dueRequeued)).isEmpty();

    assertThat(v1FreshClaim(schema)).containsExactly(plain);
    assertThat(v1FreshClaim(schema)).isEmpty();

    Job first = queue.claim("q", "w", LONG).orElseThrow();
    assertThat(first.id()).isEqualTo(ranked);
    queue.fail(first.lease(), "boom", Duration.ZERO);
    assertThat(ids(schema, dueRequeued)).as("a retry keeps the job parked").isEmpty();
    assertThat(v1FreshClaim(schema)).isEmpty();
    assertThat(queue.claim("q", "w", LONG).orElseThrow().id()).isEqualTo(ranked);
  }

  private static FencedQueue queue(TestSchema schema, PostgresFencing.Engine engine) {
    return PostgresFencing.builder(schema.dataSource())
        .schema(schema.name())
        .engine(engine)
        .build()
        .queue();
  }

  /** The ids V1's fresh claim of queue {@code q} hands out (-1: it asks for its merging claim). */
  private static List<Long> v1FreshClaim(TestSchema schema) throws SQLException {
    return ids(
        schema,
        "select o_job_id from \""
            + schema.name()
            + "\".fencing_append_claim_fresh('q', 'v1', 60000000, 10, '"
            + UUID.randomUUID()
            + "', false, 1)");
  }

  private static List<Long> ids(TestSchema schema, String sql) throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (Connection c = schema.dataSource().getConnection();
        PreparedStatement s = c.prepareStatement(sql);
        ResultSet r = s.executeQuery()) {
      while (r.next()) {
        ids.add(r.getLong(1));
      }
    }
    return ids;
  }
}
