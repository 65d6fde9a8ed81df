package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutbox;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Retention on a real PostgreSQL: what is removed, what is kept, archives, zombies, concurrency. On
 * the update-in-place engine, whose rows of {@code fencing_job} it ages, deletes and vacuums; the
 * append-only engine's is {@link AppendOnlyRetentionTest}.
 */
@FencingDatabase
class RetentionTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void removesFinishedJobsPastTheirTimeWithTheirDeliveredMessagesAndKeepsEverythingElse(
      TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    long completed = finish(queue, "q", List.of(new OutboxMessage("mail", "k", "{}")));
    FencedOutbox outbox = outbox(schema);
    assertThat(outbox.relay("mail", e -> new FencedOutcome.Accepted(e.key(), e.epoch(), false), 10))
        .hasSize(1);
    FencedQueue oneAttempt = builder(schema).maxAttempts(1).build().queue();
    long failed = oneAttempt.enqueue("q", "{}");
    oneAttempt.fail(oneAttempt.claim("q", "w", LONG).orElseThrow().lease(), "boom", Duration.ZERO);
    long owed = finish(queue, "q", List.of(new OutboxMessage("sms", "k", "{}")));
    long young = finish(queue, "q", List.of());
    long pending = queue.enqueue("q", "{}");
    long running = queue.enqueue("q", "{}");
    queue.claim("q", "w", LONG).orElseThrow();
    age(schema, "8 days", completed, failed, owed, pending, running);

    Maintenance.Report report = maintenance(schema).build().runRound();

    assertThat(report).isEqualTo(new Maintenance.Report(2, 0, 1, false));
    assertThat(ids(schema)).containsExactly(owed, young, pending, running);
    assertThat(count(schema, "select count(*) from fencing_outbox")).isEqualTo(1);
    assertThat(count(schema, "select count(*) from fencing_job_archive")).isZero();
  }

  @Test
  void aRemovedJobTakesItsRowsOfTheQueueControlsWithIt(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    long old = finish(queue, "q", List.of());
    long young = finish(queue, "q", List.of());
    long pending = queue.enqueue("q", "{}");
    for (long id : List.of(old, young, pending)) {
      QueueControlRows.insert(schema, id, "q");
    }
    age(schema, "8 days", old, pending);

    assertThat(maintenance(schema).build().runRound().jobsRemoved()).isEqualTo(1);

    assertThat(ids(schema)).containsExactly(young, pending);
    assertThat(QueueControlRows.jobs(schema))
        .containsExactlyElementsOf(QueueControlRows.rowsOf(young, pending));
  }

  @Test
  void archivingKeepsTheRowAsItWasWithItsMessages(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    long id =
        finish(
            queue,
            "q",
            List.of(
                new OutboxMessage("mail", "a", "{\"n\": 1}"),
                new OutboxMessage("mail", "b", "{}")));
    outbox(schema).relay("mail", e -> new FencedOutcome.Accepted(e.key(), e.epoch(), false), 10);
    long plain = finish(queue, "q", List.of());
    age(schema, "8 days", id, plain);

    Maintenance.Report report = maintenance(schema).archive(true).build().runUntilDone();

    assertThat(report).isEqualTo(new Maintenance.Report(2, 2, 2, false));
    assertThat(ids(schema)).isEmpty();
    Map<String, Object> row =
        Rows.select(
                schema.dataSource(),
                schema.name(),
                "select queue, job->>'owner' as owner, (job->>'epoch')::bigint as epoch,"
                    + " job->'result' as result, job->>'status' as status,"
                    + " jsonb_array_length(messages) as messages, messages->0->>'receiver_key' as"
                    + " first_key, finished_at = (job->>'finished_at')::timestamptz as same_time"
                    + " from fencing_job_archive where id = ?",
                id)
            .getFirst();
    assertThat(row)
        .containsEntry("queue", "q")
        .containsEntry("owner", "w")
        .containsEntry("epoch", 1L)
        .containsEntry("status", "completed")
        .containsEntry("messages", 2)
        .containsEntry("first_key", "a")
        .containsEntry("same_time", true);
    assertThat(row.get("result").toString()).isEqualTo("{\"done\": true}");
    assertThat(
            count(
                schema,
                "select count(*) from fencing_job_archive where id = "
                    + plain
                    + " and messages = '[]'::jsonb"))
        .isEqualTo(1);
  }

  @Test
  void roundsGoInBatchesAndSayWhetherMoreIsLeft(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    List<Long> old = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      old.add(finish(queue, "q", List.of()));
    }
    age(schema, "2 hours", old.stream().mapToLong(Long::longValue).toArray());
    PostgresMaintenance m =
        maintenance(schema).keepFinished(Duration.ofHours(1)).batchSize(2).build();

    assertThat(m.runRound()).isEqualTo(new Maintenance.Report(2, 0, 0, true));
    // oldest first
    assertThat(ids(schema)).containsExactly(old.get(2), old.get(3), old.get(4));
    assertThat(m.runUntilDone()).isEqualTo(new Maintenance.Report(3, 0, 0, false));
    assertThat(m.runRound()).isEqualTo(Maintenance.Report.NOTHING);
  }

  @Test
  void aZombieStalledPastTheRetentionOfItsJobIsRefusedAsRemovedUnderTheSameOwnerName(
      TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    long id = queue.enqueue("q", "{}");
    Job zombie = queue.claim("q", "w1", Duration.ofMillis(100)).orElseThrow();
    Thread.sleep(300);
    // the same owner name claims again, after the first lease ran out, and finishes
    Job healthy = queue.claim("q", "w1", LONG).orElseThrow();
    assertThat(healthy.epoch()).isEqualTo(Epoch.of(2));
    queue.complete(healthy.lease(), "{}");
    age(schema, "8 days", id);
    assertThat(maintenance(schema).build().runRound().jobsRemoved()).isEqualTo(1);

    FencedOutcome.Removed removed = new FencedOutcome.Removed(Long.toString(id), Epoch.FIRST);
    assertThatThrownBy(() -> queue.complete(zombie.lease(), "{\"late\": true}"))
        .isInstanceOf(FencedOffException.class)
        .extracting(e -> ((FencedOffException) e).refusal())
        .isEqualTo(removed);
    assertThat(queue.completeAll(List.of(new FencedQueue.Completion(zombie.lease(), "{}"))))
        .containsExactly(removed);
    assertThat(queue.renewAll(List.of(zombie.lease()), LONG))
        .containsExactly(new Renewal.Lost(zombie.lease(), removed));
    assertThatThrownBy(() -> queue.fail(zombie.lease(), "late", Duration.ZERO))
        .isInstanceOf(FencedOffException.class);
    assertThatThrownBy(() -> queue.release(healthy.lease()))
        .isInstanceOf(FencedOffException.class)
        .hasMessageContaining("removed after its retention time");
    assertThat(ids(schema)).isEmpty();
  }

  @Test
  void aKeyIsRememberedUntilItsJobIsRemovedAndThenAddsANewJob(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    long first = queue.enqueue("q", new KeyedJob("order-7", "{}")).id();
    queue.complete(queue.claim("q", "w", LONG).orElseThrow().lease(), "{}");
    assertThat(queue.enqueue("q", new KeyedJob("order-7", "{}")).created()).isFalse();
    age(schema, "8 days", first);
    maintenance(schema).build().runRound();

    var again = queue.enqueue("q", new KeyedJob("order-7", "{}"));
    assertThat(again.created()).isTrue();
    assertThat(again.id()).isGreaterThan(first);
  }

  @Test
  void roundsSkipRowsAnotherTransactionHoldsAndNeverWaitForThem(TestSchema schema)
      throws Exception {
    FencedQueue queue = queue(schema);
    long held = finish(queue, "q", List.of());
    long free = finish(queue, "q", List.of());
    age(schema, "8 days", held, free);
    PostgresMaintenance m = maintenance(schema).build();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      s.execute("set search_path to \"" + schema.name() + "\"");
      s.execute("select 1 from fencing_job where id = " + held + " for update");
      Future<Maintenance.Report> round = pool.submit((Callable<Maintenance.Report>) m::runRound);
      // a round that waited for the lock would be stuck here until the rollback below
      assertThat(round.get(30, TimeUnit.SECONDS)).isEqualTo(new Maintenance.Report(1, 0, 0, false));
      c.rollback();
    } finally {
      pool.shutdownNow();
    }
    assertThat(ids(schema)).containsExactly(held);
    assertThat(m.runRound().jobsRemoved()).isEqualTo(1);
  }

  @Test
  void concurrentRoundsShareTheWorkAndRemoveEveryJobOnce(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    List<Long> ids = queue.enqueueAll("q", java.util.Collections.nCopies(2_000, "{}"));
    queue.completeAll(
        queue.claimBatch("q", "w", LONG, 2_000).stream()
            .map(j -> new FencedQueue.Completion(j.lease(), "{}"))
            .toList());
    execute(schema, "update fencing_job set finished_at = now() - interval '8 days'");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<Maintenance.Report>> rounds = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      PostgresMaintenance m = maintenance(schema).batchSize(50).build();
      rounds.add(pool.submit(m::runUntilDone));
    }
    long removed = 0;
    for (Future<Maintenance.Report> r : rounds) {
      removed += r.get(120, TimeUnit.SECONDS).jobsRemoved();
    }
    pool.shutdown();
    assertThat(removed).isEqualTo(ids.size());
    assertThat(ids(schema)).isEmpty();
  }

  @Test
  void aRoundVacuumsWhenDueAndNotBefore(TestSchema schema) throws Exception {
    AtomicLong now = new AtomicLong();
    PostgresMaintenance m =
        maintenance(schema).vacuumEvery(Duration.ofSeconds(10)).nanoClock(now::get).build();
    long before = vacuums(schema);
    m.runRound();
    long first = vacuums(schema);
    assertThat(first).isEqualTo(before + 1);
    now.addAndGet(Duration.ofSeconds(9).toNanos());
    m.runRound();
    assertThat(vacuums(schema)).isEqualTo(first);
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    m.runRound();
    assertThat(vacuums(schema)).isEqualTo(first + 1);

    PostgresMaintenance never =
        maintenance(schema).vacuumEvery(Duration.ZERO).nanoClock(now::get).build();
    never.runRound();
    now.addAndGet(Duration.ofDays(1).toNanos());
    never.runRound();
    assertThat(vacuums(schema)).isEqualTo(first + 1);
  }

  @Test
  void theSchemaSetsStorageForATableOfUpdates(TestSchema schema) {
    queue(schema);
    assertThat(
            Rows.select(
                    schema.dataSource(),
                    schema.name(),
                    "select array_to_string(reloptions, ',') as o from pg_class where oid ="
                        + " 'fencing_job'::regclass")
                .getFirst()
                .get("o")
                .toString())
        .contains("fillfactor=90", "autovacuum_vacuum_scale_factor=0");
  }

  @Test
  void badSettingsAreNamedWithTheirValueAndBuildNothing(TestSchema schema) {
    assertThatThrownBy(() -> maintenance(schema).keepFinished(Duration.ofSeconds(59)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keepFinished must be between 1 min and 3650 days, but was PT59S");
    assertThatThrownBy(() -> maintenance(schema).batchSize(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("batchSize must be between 1 and 10000, but was 0");
    assertThatThrownBy(() -> maintenance(schema).vacuumEvery(Duration.ofSeconds(-1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("vacuumEvery must be between");
    assertThatThrownBy(
            () ->
                PostgresFencing.builder(schema.dataSource())
                    .schema("Bad Name")
                    .build()
                    .maintenance()
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema")
        .hasMessageContaining("Bad Name");
    assertThatThrownBy(() -> PostgresFencing.builder(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("dataSource");
    assertThat(maintenance(schema).build().toString())
        .isEqualTo(
            "PostgresMaintenance[keepFinished=PT168H, archive=false, batchSize=1000,"
                + " vacuumEvery=PT10S]");
  }

  /** A handle on the update-in-place engine, whose job rows this class ages and counts. */
  private static PostgresFencing.Builder builder(TestSchema schema) {
    return PostgresFencing.builder(schema.dataSource())
        .schema(schema.name())
        .engine(PostgresFencing.Engine.UPDATE_IN_PLACE);
  }

  private static FencedQueue queue(TestSchema schema) {
    return builder(schema).build().queue();
  }

  private static FencedOutbox outbox(TestSchema schema) {
    return builder(schema).build().outbox();
  }

  private static PostgresMaintenance.Builder maintenance(TestSchema schema) {
    return builder(schema).build().maintenance();
  }

  /** Enqueues, claims and completes one job with {@code messages}; returns its id. */
  private static long finish(FencedQueue queue, String name, List<OutboxMessage> messages) {
    long id = queue.enqueue(name, "{}");
    Job job = queue.claim(name, "w", LONG).orElseThrow();
    assertThat(job.id()).isEqualTo(id);
    queue.complete(job.lease(), "{\"done\": true}", messages);
    return id;
  }

  private static void age(TestSchema schema, String interval, long... ids) throws Exception {
    for (long id : ids) {
      execute(
          schema,
          "update fencing_job set finished_at = finished_at - interval '"
              + interval
              + "', run_at = run_at - interval '"
              + interval
              + "' where id = "
              + id);
    }
  }

  private static List<Long> ids(TestSchema schema) {
    return Rows.select(schema.dataSource(), schema.name(), "select id from fencing_job order by id")
        .stream()
        .map(r -> (Long) r.get("id"))
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

  private static long vacuums(TestSchema schema) {
    // a new connection reads the statistics afresh
    return count(
        schema,
        "select vacuum_count from pg_stat_user_tables where relid = 'fencing_job'::regclass");
  }

  private static void execute(TestSchema schema, String sql) throws Exception {
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("set search_path to \"" + schema.name() + "\"");
      s.execute(sql);
    }
  }
}
