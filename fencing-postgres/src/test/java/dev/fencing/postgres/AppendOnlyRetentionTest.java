package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.KeyedJob;
import dev.fencing.Maintenance;
import dev.fencing.OutboxMessage;
import dev.fencing.Renewal;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Retention on the append-only engine: a round removes finished jobs past their time with their
 * hand-outs, their end and their delivered messages, and claim rows no longer live; it keeps
 * everything else. A zombie of a removed job is refused as removed; a key is free again.
 */
@FencingDatabase
class AppendOnlyRetentionTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void removesFinishedJobsPastTheirTimeWithTheirRowsAndKeepsEverythingElse(TestSchema schema)
      throws Exception {
    FencedQueue queue = fencing(schema, 5).queue();
    long completed = finish(queue, List.of(new OutboxMessage("mail", "k", "{}")));
    assertThat(
            fencing(schema, 5)
                .outbox()
                .relay("mail", e -> new FencedOutcome.Accepted(e.key(), e.epoch(), false), 10))
        .hasSize(1);
    FencedQueue oneAttempt = fencing(schema, 1).queue();
    long failed = oneAttempt.enqueue("q", "{}");
    oneAttempt.fail(oneAttempt.claim("q", "w", LONG).orElseThrow().lease(), "boom", Duration.ZERO);
    long owed = finish(queue, List.of(new OutboxMessage("sms", "k", "{}")));
    long young = finish(queue, List.of());
    long running = queue.enqueue("q", "{}");
    long pending = queue.enqueue("q", "{}");
    assertThat(queue.claim("q", "w", LONG).orElseThrow().id()).isEqualTo(running);
    age(schema);
    execute(schema, "update fencing_append_done set finished_at = now() where job_id = " + young);

    Maintenance.Report report =
        fencing(schema, 5).maintenance().keepFinished(Duration.ofDays(7)).build().runRound();

    assertThat(report).isEqualTo(new Maintenance.Report(2, 0, 1, false));
    assertThat(ids(schema, "select id from fencing_append_job order by id"))
        .containsExactly(owed, young, running, pending);
    assertThat(ids(schema, "select distinct job_id as id from fencing_append_handout order by 1"))
        .containsExactly(owed, young, running);
    assertThat(ids(schema, "select job_id as id from fencing_append_done order by 1"))
        .containsExactly(owed, young);
    assertThat(count(schema, "select count(*) from fencing_append_claim where not live")).isZero();
    assertThat(count(schema, "select count(*) from fencing_append_claim where live")).isEqualTo(1);
    assertThat(count(schema, "select count(*) from fencing_outbox")).isEqualTo(1);
    assertThat(queue.depth("q")).isEqualTo(new dev.fencing.QueueDepth(1, 1, 0));
  }

  @Test
  void aPurgedJobTakesItsRowsOfTheQueueControlsWithIt(TestSchema schema) throws Exception {
    PostgresFencing fencing = fencing(schema, 5);
    long old = finish(fencing.queue(), List.of());
    long young = finish(fencing.queue(), List.of());
    long pending = fencing.queue().enqueue("q", "{}");
    for (long id : List.of(old, young, pending)) {
      QueueControlRows.insert(schema, id, "q");
    }
    execute(
        schema,
        "update fencing_append_done set finished_at = now() - interval '8 days' where job_id = "
            + old);

    assertThat(fencing.admin().purge(Duration.ofDays(7), "q")).isEqualTo(1);

    assertThat(ids(schema, "select id from fencing_append_job order by id"))
        .containsExactly(young, pending);
    assertThat(QueueControlRows.jobs(schema))
        .containsExactlyElementsOf(QueueControlRows.rowsOf(young, pending));
  }

  @Test
  void aZombieStalledPastTheRetentionOfItsJobIsRefusedAsRemovedUnderTheSameOwnerName(
      TestSchema schema) throws Exception {
    FencedQueue queue = fencing(schema, 5).queue();
    long id = queue.enqueue("q", "{}");
    Job zombie = queue.claim("q", "w1", Duration.ofMillis(100)).orElseThrow();
    Thread.sleep(300);
    Job healthy = queue.claim("q", "w1", LONG).orElseThrow();
    assertThat(healthy.epoch()).isEqualTo(Epoch.of(2));
    queue.complete(healthy.lease(), "{}");
    age(schema);
    assertThat(fencing(schema, 5).maintenance().build().runRound().jobsRemoved()).isEqualTo(1);

    FencedOutcome.Removed removed = new FencedOutcome.Removed(Long.toString(id), Epoch.FIRST);
    assertThatThrownBy(() -> queue.complete(zombie.lease(), "{\"late\": true}"))
        .isInstanceOf(FencedOffException.class)
        .extracting(e -> ((FencedOffException) e).refusal())
        .isEqualTo(removed);
    assertThat(queue.renewAll(List.of(zombie.lease()), LONG))
        .containsExactly(new Renewal.Lost(zombie.lease(), removed));
    assertThatThrownBy(() -> queue.release(healthy.lease()))
        .isInstanceOf(FencedOffException.class)
        .hasMessageContaining("removed after its retention time");
    assertThat(ids(schema, "select id from fencing_append_job")).isEmpty();
  }

  @Test
  void aKeyIsRememberedUntilItsJobIsRemovedAndThenAddsANewJob(TestSchema schema) throws Exception {
    FencedQueue queue = fencing(schema, 5).queue();
    long first = queue.enqueue("q", new KeyedJob("order-7", "{}")).id();
    queue.complete(queue.claim("q", "w", LONG).orElseThrow().lease(), "{}");
    assertThat(queue.enqueue("q", new KeyedJob("order-7", "{}")).created()).isFalse();
    age(schema);
    fencing(schema, 5).maintenance().build().runRound();

    var again = queue.enqueue("q", new KeyedJob("order-7", "{}"));
    assertThat(again.created()).isTrue();
    assertThat(again.id()).isGreaterThan(first);
  }

  @Test
  void theTablesAClaimScansFromTheirOldestEntryAreVacuumedByACountOfDeadVersions(
      TestSchema schema) {
    fencing(schema, 5).queue();
    for (String table : List.of("fencing_append_claim", "fencing_append_requeue")) {
      assertThat(
              Rows.select(
                      schema.dataSource(),
                      schema.name(),
                      "select array_to_string(reloptions, ',') as o from pg_class where oid = '"
                          + table
                          + "'::regclass")
                  .getFirst()
                  .get("o"))
          .as(table)
          .hasToString("autovacuum_vacuum_scale_factor=0,autovacuum_vacuum_threshold=10000");
    }
  }

  private static PostgresFencing fencing(TestSchema schema, int maxAttempts) {
    return PostgresFencing.builder(schema.dataSource())
        .schema(schema.name())
        .maxAttempts(maxAttempts)
        .engine(PostgresFencing.Engine.APPEND_ONLY)
        .build();
  }

  /** Enqueues, claims and completes one job with {@code messages}; returns its id. */
  private static long finish(FencedQueue queue, List<OutboxMessage> messages) {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w", LONG).orElseThrow();
    assertThat(job.id()).isEqualTo(id);
    queue.complete(job.lease(), "{\"done\": true}", messages);
    return id;
  }

  /** Makes every finished job and every claim row 8 days old. */
  private static void age(TestSchema schema) throws Exception {
    execute(schema, "update fencing_append_done set finished_at = now() - interval '8 days'");
    execute(schema, "update fencing_append_claim set claimed_at = now() - interval '8 days'");
  }

  private static List<Long> ids(TestSchema schema, String sql) {
    return Rows.select(schema.dataSource(), schema.name(), sql).stream()
        .map(r -> ((Number) r.get("id")).longValue())
        .toList();
  }

  private static long count(TestSchema schema, String sql) {
    return ((Number)
            Rows.select(schema.dataSource(), schema.name(), sql)
                .getFirst()
                .values()
                .iterator()
                .next())
        .longValue();
  }

  private static void execute(TestSchema schema, String sql) throws Exception {
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("set search_path to \"" + schema.name() + "\"");
      s.execute(sql);
    }
  }
}
