package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Retention ran inside the first queue's runtime, so an application with no handler bean (a
 * producer only) removed no finished job however old. The workers run it now, with or without
 * queues.
 */
class ProducerOnlyRunsRetentionTest {

  @Test
  void anApplicationWithoutAHandlerRemovesFinishedJobsOlderThanKeepFinished() throws Exception {
    String schema = Apps.db().freshSchema("retention");
    long old = finishedEightDaysAgo(schema);
    try (ConfigurableApplicationContext app =
        Apps.start(StarterTest.NoHandler.class, schema, "fencing.engine=update-in-place")) {
      FencedQueue queue = app.getBean(FencedQueue.class);
      long fresh = queue.enqueue("emails", "{}");
      ManagedWorkers workers = app.getBean(ManagedWorkers.class);
      // the round's counters are added after its transaction committed: wait for them, not for
      // the row alone (CI once read the row gone and the count still 0)
      Apps.await(
          "the old job removed and counted",
          Duration.ofSeconds(20),
          () -> queue.find(old).isEmpty() && workers.maintenanceStats().jobsRemoved() > 0);
      assertThat(workers.stats()).isEmpty();
      assertThat(workers.maintenanceStats().jobsRemoved()).isEqualTo(1);
      assertThat(queue.find(fresh)).as("a pending job stays").isPresent();
    }
  }

  @Test
  void maintenanceOffRemovesNothing() throws Exception {
    String schema = Apps.db().freshSchema("retention");
    long old = finishedEightDaysAgo(schema);
    try (ConfigurableApplicationContext app =
        Apps.start(
            StarterTest.NoHandler.class,
            schema,
            "fencing.engine=update-in-place",
            "fencing.maintenance.enabled=false")) {
      Thread.sleep(1_500);
      assertThat(app.getBean(FencedQueue.class).find(old)).isPresent();
      assertThat(app.getBean(ManagedWorkers.class).maintenanceStats().rounds()).isZero();
    }
  }

  /** Enqueues, runs and completes a job, and sets its end 8 days back (keep-finished is 7). */
  private static long finishedEightDaysAgo(String schema) throws SQLException {
    FencedQueue queue =
        PostgresFencing.builder(Apps.db().dataSource())
            .schema(schema)
            .engine(PostgresFencing.Engine.UPDATE_IN_PLACE)
            .build()
            .queue();
    long id = queue.enqueue("emails", "{}");
    Job job = queue.claim("emails", "earlier", Duration.ofMinutes(1)).orElseThrow();
    queue.complete(job.lease(), "{}");
    try (Connection c = Apps.db().dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "UPDATE "
                    + schema
                    + ".fencing_job SET finished_at = now() - interval '8 days' WHERE id = ?")) {
      s.setLong(1, id);
      assertThat(s.executeUpdate()).isEqualTo(1);
    }
    return id;
  }
}
