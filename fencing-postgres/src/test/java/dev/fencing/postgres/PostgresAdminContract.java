package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.fencing.Acquisition;
import dev.fencing.CancelResult;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobOptions;
import dev.fencing.JobState;
import dev.fencing.KeyedJob;
import dev.fencing.OutboxMessage;
import dev.fencing.Renewal;
import dev.fencing.ResourceOwnership;
import dev.fencing.SchemaNotInstalledException;
import dev.fencing.postgres.admin.AdminChange;
import dev.fencing.postgres.admin.EpochClaim;
import dev.fencing.postgres.admin.EpochOwner;
import dev.fencing.postgres.admin.JobDetails;
import dev.fencing.postgres.admin.JobHistory;
import dev.fencing.postgres.admin.JobOptionsView;
import dev.fencing.postgres.admin.JobPage;
import dev.fencing.postgres.admin.JobRow;
import dev.fencing.postgres.admin.JobSearch;
import dev.fencing.postgres.admin.OutboxBacklog;
import dev.fencing.postgres.admin.OwnershipRow;
import dev.fencing.postgres.admin.PostgresAdmin;
import dev.fencing.postgres.admin.QueueActivity;
import dev.fencing.postgres.admin.QueueSummary;
import dev.fencing.postgres.admin.RefusedWrite;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * The admin API on a real PostgreSQL, the same on both engines: history, requeue, fail, cancel,
 * queues, purge, schema checks.
 */
@FencingDatabase
abstract class PostgresAdminContract {

  /** The engine under test. */
  abstract PostgresFencing.Engine engine();

  /** Makes the jobs {@code ids}, finished, look finished {@code days} days ago. */
  abstract void finishedDaysAgo(TestSchema schema, int days, long... ids) throws Exception;

  private static final Duration SHORT = Duration.ofMillis(150);

  @Test
  void historyNamesTheOwnerOfEveryEpochAcrossAZombieTakeoverAndARepeatedOwner(TestSchema schema)
      throws Exception {
    FencedQueue queue = queue(schema, 5);
    long id = queue.enqueue("q", "{}");
    Job w1 = queue.claim("q", "w1", SHORT).orElseThrow();
    Thread.sleep(300);
    Job w2 = queue.claim("q", "w2", SHORT).orElseThrow();
    Thread.sleep(300);
    Job last = queue.claim("q", "w2", Duration.ofMinutes(1)).orElseThrow();
    assertThatThrownBy(() -> queue.complete(w1.lease(), "{}"))
        .isInstanceOf(FencedOffException.class);

    JobDetails job = admin(schema).job(id).orElseThrow();
    assertThat(job.history())
        .containsExactly(new EpochOwner(1, "w1"), new EpochOwner(2, "w2"), new EpochOwner(3, "w2"));
    assertThat(job.job().epoch()).isEqualTo(last.epoch().value());
    assertThat(job.expiries()).isEqualTo(2);
    assertThat(job.lastEvent()).isEqualTo("claimed");

    // the epoch-2 zombie renews, the holder completes, the epoch-1 zombie completes again
    assertThat(queue.renewAll(List.of(w2.lease()), SHORT).getFirst())
        .isInstanceOf(Renewal.Lost.class);
    queue.complete(last.lease(), "{}");
    assertThatThrownBy(() -> queue.complete(w1.lease(), "{}"))
        .isInstanceOf(FencedOffException.class);
    PostgresAdmin admin = admin(schema);

    JobHistory history = admin.history(id).orElseThrow();

    boolean appendOnly = engine() == PostgresFencing.Engine.APPEND_ONLY;
    // the in-place row keeps no trace of the expiry, only that a later claim took the job
    String ranOut = appendOnly ? "expired" : "taken over";
    assertThat(history.claims())
        .extracting(EpochClaim::epoch, EpochClaim::owner, EpochClaim::ended)
        .containsExactly(
            tuple(3L, "w2", "completed"), tuple(2L, "w2", ranOut), tuple(1L, "w1", ranOut));
    assertThat(history.claimsComplete()).isEqualTo(appendOnly);
    assertThat(history.claims().getLast().claimedAt() != null).isEqualTo(appendOnly);
    String superseded = " superseded by epoch 3 held by w2";
    assertThat(history.refusals())
        .extracting(
            RefusedWrite::epoch,
            RefusedWrite::owner,
            RefusedWrite::action,
            RefusedWrite::kind,
            RefusedWrite::reason)
        .containsExactly(
            tuple(1L, "w1", "complete", "Superseded", "epoch 1" + superseded),
            tuple(2L, "w2", "renew", "Superseded", "epoch 2" + superseded),
            tuple(1L, "w1", "complete", "Superseded", "epoch 1" + superseded));
    assertThat(admin.history(999_999)).isEmpty();

    // at most the newest 50 of a job are kept: a refusal deletes the older ones (these are an hour
    // older than the test's own, however slowly the machine ran it)
    execute(
        schema,
        "insert into fencing_refusal (job_id, epoch, owner, action, kind, reason, at)"
            + " select "
            + id
            + ", 1, 'w1', 'renew', 'Superseded', 'old',"
            + " now() - interval '1 hour' - n * interval '1 s'"
            + " from generate_series(1, 60) n");
    assertThatThrownBy(() -> queue.complete(w1.lease(), "{}"))
        .isInstanceOf(FencedOffException.class);
    List<RefusedWrite> kept = admin.history(id).orElseThrow().refusals();
    assertThat(kept).hasSize(50);
    assertThat(kept.subList(0, 4)).extracting(RefusedWrite::reason).doesNotContain("old");
    assertThat(kept.subList(4, 50)).extracting(RefusedWrite::reason).containsOnly("old");

    // and they go with their job
    finishedDaysAgo(schema, 8, id);
    assertThat(admin.purge(Duration.ofDays(7), null)).isEqualTo(1);
    assertThat(count(schema, "select count(*) from fencing_refusal")).isZero();
  }

  @Test
  void historyTellsAReleaseAFailAndACancelApartAndTheCancelledHoldersRefusal(TestSchema schema) {
    FencedQueue queue = queue(schema, 5);
    long id = queue.enqueue("q", "{}");
    queue.release(queue.claim("q", "w1", Duration.ofMinutes(1)).orElseThrow().lease());
    queue.fail(
        queue.claim("q", "w2", Duration.ofMinutes(1)).orElseThrow().lease(), "x", Duration.ZERO);
    Job held = queue.claim("q", "w3", Duration.ofMinutes(1)).orElseThrow();
    PostgresAdmin admin = admin(schema);
    assertThat(admin.history(id).orElseThrow().claims().getFirst().ended()).isEqualTo("running");
    admin.cancel(id, "wrong input");
    assertThatThrownBy(() -> queue.complete(held.lease(), "{}"))
        .isInstanceOf(FencedOffException.class);

    JobHistory history = admin.history(id).orElseThrow();

    assertThat(history.claims())
        .extracting(EpochClaim::epoch, EpochClaim::owner, EpochClaim::ended)
        .containsExactly(
            tuple(3L, "w3", "cancelled"), tuple(2L, "w2", "failed"), tuple(1L, "w1", "released"));
    assertThat(history.refusals())
        .extracting(RefusedWrite::action, RefusedWrite::kind, RefusedWrite::reason)
        .containsExactly(tuple("complete", "Cancelled", "the job was cancelled: wrong input"));
  }

  /**
   * The record of a refusal is best effort: a schema without its table (a read-only connection, a
   * standby) loses the record, and the writer still gets its refusal, nothing else changed.
   */
  @Test
  void aRefusalStandsWhenItsRecordCannotBeWritten(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema, 5);
    queue.enqueue("q", "{}");
    Job zombie = queue.claim("q", "w1", SHORT).orElseThrow();
    Thread.sleep(300);
    Job holder = queue.claim("q", "w2", Duration.ofMinutes(1)).orElseThrow();
    execute(schema, "drop table fencing_refusal");

    assertThatThrownBy(() -> queue.complete(zombie.lease(), "{}"))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e -> assertThat(e.refusal()).isInstanceOf(FencedOutcome.Superseded.class));
    assertThat(queue.renewAll(List.of(zombie.lease()), SHORT).getFirst())
        .isInstanceOf(Renewal.Lost.class);
    assertThat(queue.complete(holder.lease(), "{}").isAccepted()).isTrue();
  }

  @Test
  void historyKeepsTheLastSixteenClaims(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema, 1000);
    long id = queue.enqueue("q", "{}");
    for (int i = 1; i <= 18; i++) {
      queue.release(queue.claim("q", "w" + i, Duration.ofMinutes(1)).orElseThrow().lease());
    }
    List<EpochOwner> history = admin(schema).job(id).orElseThrow().history();
    assertThat(history).hasSize(16);
    assertThat(history.getFirst()).isEqualTo(new EpochOwner(3, "w3"));
    assertThat(history.getLast()).isEqualTo(new EpochOwner(18, "w18"));
  }

  @Test
  void requeueOfAFailedJobMakesItClaimableAtOnceWithALargerEpoch(TestSchema schema) {
    FencedQueue queue = queue(schema, 1);
    long id = queue.enqueue("q", "{}");
    Job first = queue.claim("q", "w1", Duration.ofMinutes(1)).orElseThrow();
    queue.fail(first.lease(), "boom", Duration.ZERO);
    PostgresAdmin admin = admin(schema);
    assertThat(admin.job(id).orElseThrow().job().state()).isEqualTo(JobState.FAILED);

    AdminChange change = admin.requeue(id);

    JobDetails after = ((AdminChange.Changed) change).job();
    assertThat(after.job().state()).isEqualTo(JobState.PENDING);
    assertThat(after.job().attempts()).isZero();
    assertThat(after.job().epoch()).isEqualTo(first.epoch().value());
    assertThat(after.lastEvent()).isEqualTo("requeued");
    assertThat(after.job().lastError()).isEqualTo("boom");
    Job again = queue.claim("q", "w2", Duration.ofMinutes(1)).orElseThrow();
    assertThat(again.epoch().value()).isGreaterThan(first.epoch().value());
    assertThat(again.attempt()).isEqualTo(1);
    assertThatThrownBy(() -> queue.complete(first.lease(), "{}"))
        .isInstanceOf(FencedOffException.class);
    assertThat(queue.complete(again.lease(), "{}").isAccepted()).isTrue();
  }

  @Test
  void requeueRefusesRunningPendingAndCompletedJobsAndNamesAnUnknownOne(TestSchema schema) {
    FencedQueue queue = queue(schema, 5);
    long running = queue.enqueue("q", "{}");
    Job lease = queue.claim("q", "w1", Duration.ofMinutes(1)).orElseThrow();
    long pending = queue.enqueue("q", "{}");
    PostgresAdmin admin = admin(schema);

    assertThat(admin.requeue(running))
        .isEqualTo(
            new AdminChange.Refused(
                running,
                JobState.RUNNING,
                "job "
                    + running
                    + " is running; only a failed job can be requeued; enqueue a new job to run a"
                    + " completed one again"));
    assertThat(admin.requeue(pending)).isInstanceOf(AdminChange.Refused.class);
    queue.complete(lease.lease(), "{}");
    assertThat(((AdminChange.Refused) admin.requeue(running)).state())
        .isEqualTo(JobState.COMPLETED);
    assertThat(admin.job(running).orElseThrow().job().state()).isEqualTo(JobState.COMPLETED);
    assertThat(admin.requeue(999_999)).isEqualTo(new AdminChange.NotFound(999_999, schema.name()));
    assertThat(((AdminChange.NotFound) admin.requeue(999_999)).message())
        .isEqualTo("no job 999999 in schema " + schema.name());
  }

  @Test
  void failOfARunningJobRefusesTheHoldersRenewAndCommit(TestSchema schema) {
    FencedQueue queue = queue(schema, 5);
    long id = queue.enqueue("q", "{}");
    Job held = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();
    PostgresAdmin admin = admin(schema);

    JobDetails failed = ((AdminChange.Changed) admin.fail(id, "poison pill")).job();

    assertThat(failed.job().state()).isEqualTo(JobState.FAILED);
    assertThat(failed.job().lastError()).isEqualTo("poison pill");
    assertThat(failed.job().epoch()).isEqualTo(held.epoch().value());
    assertThatThrownBy(() -> queue.renew(held.lease(), Duration.ofMinutes(5)))
        .isInstanceOf(FencedOffException.class);
    assertThatThrownBy(() -> queue.complete(held.lease(), "{\"late\": true}"))
        .isInstanceOf(FencedOffException.class);
    assertThatThrownBy(() -> queue.fail(held.lease(), "poison pill", Duration.ZERO))
        .isInstanceOf(FencedOffException.class);
    assertThat(admin.job(id).orElseThrow().job().result()).isNull();
    assertThat(failed.lastEvent()).isEqualTo("admin_failed");
    assertThat(admin.fail(id, "again")).isInstanceOf(AdminChange.Refused.class);
    assertThatThrownBy(() -> admin.fail(id, " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("reason must not be blank, but was ' '");
  }

  @Test
  void aCancelledJobIsNotRequeuedAndTheAdminsCancelIsTheQueues(TestSchema schema) {
    FencedQueue queue = queue(schema, 5);
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();
    PostgresAdmin admin = admin(schema);
    CancelResult first = admin.cancel(id, "by hand");
    assertThat(first).isInstanceOf(CancelResult.Cancelled.class);
    CancelResult.Cancelled cancelled = (CancelResult.Cancelled) first;
    assertThat(cancelled.fence()).isEqualTo(job.epoch().next());
    assertThat(queue.cancel(id))
        .isEqualTo(new CancelResult.Cancelled(id, JobState.RUNNING, cancelled.fence(), true));

    assertThat(admin.requeue(id))
        .isInstanceOfSatisfying(
            AdminChange.Refused.class,
            r ->
                assertThat(r.reason())
                    .isEqualTo(
                        "job "
                            + id
                            + " was cancelled; cancelled jobs are not requeued (receivers may"
                            + " already be fenced at the job's next epoch): enqueue a new job"));
    assertThat(admin.job(id).orElseThrow().job().state()).isEqualTo(JobState.FAILED);
    assertThat(admin.job(id).orElseThrow().job().lastError()).isEqualTo("cancelled: by hand");
    assertThat(admin.job(id).orElseThrow().lastEvent()).isEqualTo("cancelled");
    assertThat(queue.claim("q", "w2", Duration.ofMinutes(5))).isEmpty();
    // a commit with messages too (the contract's backends may have no outbox)
    assertThatThrownBy(
            () -> queue.complete(job.lease(), "{}", List.of(new OutboxMessage("d", "k", "{}"))))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e ->
                assertThat(e.refusal())
                    .isEqualTo(
                        new FencedOutcome.Cancelled(job.lease().key(), job.epoch(), "by hand")));
    assertThat(admin.job(id).orElseThrow().messages()).isEmpty();
  }

  @Test
  void aCancelDeletesTheJobsParkedRow(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema, 5);
    long id = queue.enqueue("q", "{}");
    long other = queue.enqueue("q", "{}");
    execute(
        schema,
        "insert into fencing_parked (job_id, queue, priority, ready_at) values ("
            + id
            + ", 'q', 5, now()), ("
            + other
            + ", 'q', 5, now())");
    assertThat(queue.cancel(id)).isInstanceOf(CancelResult.Cancelled.class);
    assertThat(count(schema, "select count(*) from fencing_parked where job_id = " + id)).isZero();
    assertThat(count(schema, "select count(*) from fencing_parked")).isEqualTo(1);
  }

  static long count(TestSchema schema, String sql) throws Exception {
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("set search_path to \"" + schema.name() + "\"");
      try (ResultSet r = s.executeQuery(sql)) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  @Test
  void aCancelRacingTheHoldersCommitGivesOneTruth(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema, 5);
    int n = 40;
    queue.enqueueAll("q", Collections.nCopies(n, "{}"));
    List<Job> jobs = queue.claimBatch("q", "w1", Duration.ofMinutes(5), n);
    assertThat(jobs).hasSize(n);
    Map<Long, FencedOutcome> commits = new ConcurrentHashMap<>();
    Map<Long, CancelResult> cancels = new ConcurrentHashMap<>();
    CountDownLatch start = new CountDownLatch(1);
    try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
      threads.submit(
          () -> {
            start.await();
            for (Job job : jobs) {
              try {
                commits.put(job.id(), queue.complete(job.lease(), "{}"));
              } catch (FencedOffException e) {
                commits.put(job.id(), e.refusal());
              }
            }
            return null;
          });
      threads.submit(
          () -> {
            start.await();
            for (Job job : jobs.reversed()) {
              cancels.put(job.id(), queue.cancel(job.id(), "race"));
            }
            return null;
          });
      start.countDown();
    }
    for (Job job : jobs) {
      FencedOutcome commit = commits.get(job.id());
      CancelResult cancel = cancels.get(job.id());
      JobState state = queue.find(job.id()).orElseThrow().state();
      if (commit instanceof FencedOutcome.Accepted) {
        assertThat(cancel).isEqualTo(new CancelResult.AlreadyEnded(job.id(), JobState.COMPLETED));
        assertThat(state).isEqualTo(JobState.COMPLETED);
      } else {
        assertThat(commit)
            .isEqualTo(new FencedOutcome.Cancelled(job.lease().key(), job.epoch(), "race"));
        assertThat(cancel).isInstanceOf(CancelResult.Cancelled.class);
        assertThat(state).isEqualTo(JobState.FAILED);
      }
    }
  }

  @Test
  void queuesCountEachStateAndCompletedOnlyWhenAsked(TestSchema schema) {
    FencedQueue queue = queue(schema, 1);
    queue.enqueueAll("mail", List.of("{}", "{}", "{}"));
    queue.enqueue("pdf", "{}");
    queue.enqueue("zip", "{}");
    Job mail = queue.claim("mail", "w1", Duration.ofMinutes(1)).orElseThrow();
    queue.complete(queue.claim("pdf", "w1", Duration.ofMinutes(1)).orElseThrow().lease(), "{}");
    queue.fail(
        queue.claim("zip", "w1", Duration.ofMinutes(1)).orElseThrow().lease(), "x", Duration.ZERO);
    PostgresAdmin admin = admin(schema);

    assertThat(admin.queues(false))
        .containsExactly(
            new QueueSummary("mail", 2, 1, 0, null), new QueueSummary("zip", 0, 0, 1, null));
    assertThat(admin.queues(true))
        .containsExactly(
            new QueueSummary("mail", 2, 1, 0, 0L),
            new QueueSummary("pdf", 0, 0, 0, 1L),
            new QueueSummary("zip", 0, 0, 1, 0L));
    assertThat(mail.queue()).isEqualTo("mail");
  }

  @Test
  void purgeDeletesOldFinishedJobsButKeepsUndeliveredMessagesAndYoungOrUnfinishedJobs(
      TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema, 5);
    long old = queue.enqueue("q", "{}");
    queue.complete(queue.claim("q", "w", Duration.ofMinutes(1)).orElseThrow().lease(), "{}");
    long owed = queue.enqueue("q", "{}");
    queue.complete(
        queue.claim("q", "w", Duration.ofMinutes(1)).orElseThrow().lease(),
        "{}",
        List.of(new OutboxMessage("mail", "k", "{}")));
    long otherQueue = queue.enqueue("r", "{}");
    queue.complete(queue.claim("r", "w", Duration.ofMinutes(1)).orElseThrow().lease(), "{}");
    long young = queue.enqueue("q", "{}");
    queue.complete(queue.claim("q", "w", Duration.ofMinutes(1)).orElseThrow().lease(), "{}");
    long pending = queue.enqueue("q", "{}");
    finishedDaysAgo(schema, 8, old, owed, otherQueue, pending);
    PostgresAdmin admin = admin(schema);

    assertThat(admin.purge(Duration.ofDays(7), "q")).isEqualTo(1);
    assertThat(admin.job(old)).isEmpty();
    assertThat(admin.job(owed)).isPresent();
    assertThat(admin.job(young)).isPresent();
    assertThat(admin.job(pending)).isPresent();
    assertThat(admin.job(otherQueue)).isPresent();
    assertThat(admin.purge(Duration.ofDays(7), null)).isEqualTo(1);
    assertThat(admin.job(otherQueue)).isEmpty();
    assertThatThrownBy(() -> admin.purge(Duration.ofSeconds(-5), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("olderThan must be between 1 min and 3650 days, but was PT-5S");
  }

  @Test
  void anEmptySchemaIsNamedWithHowToInstall(TestSchema schema) {
    assertThatThrownBy(() -> admin(schema))
        .isInstanceOf(SchemaNotInstalledException.class)
        .hasMessageStartingWith("schema " + schema.name() + " has no fencing tables; install them");
  }

  @Test
  void jobsFindsByQueueStateAndKeyNewestFirstAndPagesByTheId(TestSchema schema) {
    FencedQueue queue = queue(schema, 1);
    long done = queue.enqueue("q", "{}");
    queue.complete(queue.claim("q", "w", Duration.ofMinutes(1)).orElseThrow().lease(), "{}");
    long failed = queue.enqueue("q", "{}");
    queue.fail(queue.claim("q", "w", Duration.ofMinutes(1)).orElseThrow().lease(), "x", SHORT);
    long running = queue.enqueue("q", "{}");
    queue.claim("q", "<script>w</script>", Duration.ofMinutes(1)).orElseThrow();
    long other = queue.enqueue("r", "{}");
    queue.release(queue.claim("r", "w", Duration.ofMinutes(1)).orElseThrow().lease());
    long fresh = queue.enqueue("q", "{}");
    String script = "<script>alert(1)</script>";
    long keyed =
        queue
            .enqueue("q", new KeyedJob(script, "{}", JobOptions.ofPriority(2).withGroup(script)))
            .id();
    PostgresAdmin admin = admin(schema);

    JobPage first = admin.jobs(JobSearch.all(2));
    assertThat(first.jobs()).extracting(JobRow::id).containsExactly(keyed, fresh);
    JobPage second = admin.jobs(JobSearch.all(2).withAfterId(first.nextAfterId()));
    assertThat(second.jobs()).extracting(JobRow::id).containsExactly(other, running);
    JobPage last = admin.jobs(JobSearch.all(2).withAfterId(second.nextAfterId()));
    assertThat(last.jobs()).extracting(JobRow::id).containsExactly(failed, done);
    assertThat(last.nextAfterId()).isNull();
    JobSearch inQ = JobSearch.all(10).withQueue("q");
    assertThat(admin.jobs(inQ).jobs())
        .extracting(JobRow::id)
        .containsExactly(keyed, fresh, running, failed, done);
    assertThat(admin.jobs(inQ.withState(JobState.PENDING)).jobs())
        .extracting(JobRow::id)
        .containsExactly(keyed, fresh);
    assertThat(admin.jobs(inQ.withState(JobState.RUNNING)).jobs())
        .extracting(JobRow::owner)
        .containsExactly("<script>w</script>");
    assertThat(admin.jobs(inQ.withState(JobState.FAILED)).jobs())
        .extracting(JobRow::id, JobRow::lastError)
        .containsExactly(org.assertj.core.api.Assertions.tuple(failed, "x"));
    assertThat(
            admin
                .jobs(JobSearch.all(10).withState(JobState.COMPLETED))
                .jobs()
                .getFirst()
                .finishedAt())
        .isNotNull();
    assertThat(admin.jobs(JobSearch.all(10).withQueue("r").withState(JobState.PENDING)).jobs())
        .extracting(JobRow::id, JobRow::epoch)
        .containsExactly(org.assertj.core.api.Assertions.tuple(other, 1L));
    assertThat(admin.jobs(JobSearch.all(1).withState(JobState.PENDING)).nextAfterId())
        .isEqualTo(keyed);
    JobRow found = admin.jobs(JobSearch.all(10).withKey(script)).jobs().getFirst();
    assertThat(found)
        .isEqualTo(
            new JobRow(
                keyed,
                "q",
                JobState.PENDING,
                script,
                0,
                null,
                0,
                admin.job(keyed).orElseThrow().job().runAt(),
                null,
                null,
                2,
                script));
    assertThat(admin.jobs(inQ.withKey("none")).jobs()).isEmpty();
    assertThat(admin.options(keyed)).contains(new JobOptionsView(2, script, script));
    assertThat(admin.options(done)).contains(new JobOptionsView(0, null, null));
    assertThat(admin.options(999_999)).isEmpty();
  }

  @Test
  void activityCountsTheLastHourInFiveMinuteSpansAndTheOldestPendingJob(TestSchema schema)
      throws Exception {
    FencedQueue queue = queue(schema, 1);
    long old = queue.enqueue("q", "{}");
    queue.complete(queue.claim("q", "w", Duration.ofMinutes(1)).orElseThrow().lease(), "{}");
    queue.enqueue("q", "{}");
    queue.complete(queue.claim("q", "w", Duration.ofMinutes(1)).orElseThrow().lease(), "{}");
    queue.enqueue("q", "{}");
    queue.fail(queue.claim("q", "w", Duration.ofMinutes(1)).orElseThrow().lease(), "x", SHORT);
    queue.enqueue("r", "{}");
    queue.complete(queue.claim("r", "w", Duration.ofMinutes(1)).orElseThrow().lease(), "{}");
    long pending = queue.enqueue("q", "{}", JobOptions.after(Duration.ofHours(1)));
    finishedDaysAgo(schema, 8, old);
    PostgresAdmin admin = admin(schema);

    QueueActivity q = admin.activity("q");

    assertThat(q.lastHour()).hasSize(12);
    assertThat(q.lastHour().getLast())
        .extracting(QueueActivity.Bucket::completed, QueueActivity.Bucket::failed)
        .containsExactly(1L, 1L);
    assertThat(q.lastHour().subList(0, 11)).allMatch(b -> b.completed() == 0 && b.failed() == 0);
    assertThat(Duration.between(q.lastHour().getFirst().start(), q.lastHour().getLast().start()))
        .isEqualTo(Duration.ofMinutes(55));
    assertThat(q.oldestPendingSince()).isEqualTo(admin.job(pending).orElseThrow().job().runAt());
    assertThat(admin.activity("r").oldestPendingSince()).isNull();
    assertThat(admin.activity("none").lastHour())
        .allMatch(b -> b.completed() == 0 && b.failed() == 0);

    // every queue at once, in one scan of the hour: the same answers, per queue
    List<QueueActivity> all = admin.activities(List.of("q", "none"));
    assertThat(all).extracting(QueueActivity::queue).containsExactly("none", "q", "r");
    assertThat(all.get(1).oldestPendingSince()).isEqualTo(q.oldestPendingSince());
    assertThat(all.get(1).lastHour())
        .extracting(QueueActivity.Bucket::completed, QueueActivity.Bucket::failed)
        .isEqualTo(q.lastHour().stream().map(b -> tuple(b.completed(), b.failed())).toList());
    assertThat(all.get(2).lastHour().getLast().completed()).isEqualTo(1L);
    assertThat(all.get(0).lastHour()).allMatch(b -> b.completed() == 0 && b.failed() == 0);
    assertThatThrownBy(() -> admin.activities(List.of("no-queue!")))
        .hasMessageContaining("no-queue!");
  }

  @Test
  void ownershipsAndTheOutboxBacklogAreListed(TestSchema schema) {
    FencedQueue queue = queue(schema, 1);
    PostgresAdmin admin = admin(schema);
    assertThat(admin.outboxBacklog()).isEqualTo(new OutboxBacklog(0, null));
    queue.enqueue("q", "{}");
    queue.complete(
        queue.claim("q", "w", Duration.ofMinutes(1)).orElseThrow().lease(),
        "{}",
        List.of(new OutboxMessage("mail", "k", "{}"), new OutboxMessage("mail", "l", "{}")));
    OutboxBacklog backlog = admin.outboxBacklog();
    assertThat(backlog.undelivered()).isEqualTo(2);
    assertThat(backlog.oldestUndeliveredAt()).isNotNull();

    ResourceOwnership ownership = fencing(schema).ownership();
    var held = ownership.acquire("b", "<script>o</script>", Duration.ofMinutes(1));
    var gone = ownership.acquire("a", "o2", Duration.ofMinutes(1));
    ownership.release(((Acquisition.Acquired) gone).ownership());

    List<OwnershipRow> rows = admin.ownerships(10);
    assertThat(rows)
        .extracting(OwnershipRow::resource, OwnershipRow::owner, OwnershipRow::valid)
        .containsExactly(
            org.assertj.core.api.Assertions.tuple("a", "o2", false),
            org.assertj.core.api.Assertions.tuple("b", "<script>o</script>", true));
    assertThat(rows.get(1).epoch())
        .isEqualTo(((Acquisition.Acquired) held).ownership().epoch().value());
    assertThat(admin.ownerships(1)).hasSize(1);
  }

  @Test
  void badReadsAreRefusedNamingTheParameterAndValue(TestSchema schema) {
    queue(schema, 1);
    PostgresAdmin admin = admin(schema);
    assertThatThrownBy(() -> JobSearch.all(10).withQueue("<script>"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("queue must be a plain identifier ([a-z_][a-z0-9_]{0,62}), but was '<script>'");
    assertThatThrownBy(() -> JobSearch.all(0))
        .hasMessage("limit must be between 1 and 500, but was 0");
    assertThatThrownBy(() -> JobSearch.all(501))
        .hasMessage("limit must be between 1 and 500, but was 501");
    assertThatThrownBy(() -> JobSearch.all(1).withAfterId(0L))
        .hasMessage("afterId must be at least 1, but was 0");
    assertThatThrownBy(() -> JobSearch.all(1).withKey(" "))
        .hasMessage(
            "key must be non-blank well-formed text of at most 200 characters, but was ' '");
    assertThatThrownBy(() -> admin.activity("Q 1"))
        .hasMessage("queue must be a plain identifier ([a-z_][a-z0-9_]{0,62}), but was 'Q 1'");
    assertThatThrownBy(() -> admin.ownerships(0))
        .hasMessage("limit must be between 1 and 1000, but was 0");
    assertThatThrownBy(() -> admin.ownerships(1001))
        .hasMessage("limit must be between 1 and 1000, but was 1001");
    assertThatThrownBy(() -> admin.options(0)).hasMessage("jobId must be at least 1, but was 0");
  }

  PostgresFencing fencing(TestSchema schema) {
    return PostgresFencing.builder(schema.sharedPool())
        .schema(schema.name())
        .engine(engine())
        .build();
  }

  FencedQueue queue(TestSchema schema, int maxAttempts) {
    return PostgresFencing.builder(schema.sharedPool())
        .schema(schema.name())
        .engine(engine())
        .maxAttempts(maxAttempts)
        .build()
        .queue();
  }

  PostgresAdmin admin(TestSchema schema) {
    return PostgresFencing.builder(schema.sharedPool())
        .schema(schema.name())
        .engine(engine())
        .install(false)
        .build()
        .admin();
  }

  static void execute(TestSchema schema, String sql) throws Exception {
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("set search_path to \"" + schema.name() + "\"");
      s.execute(sql);
    }
  }
}
