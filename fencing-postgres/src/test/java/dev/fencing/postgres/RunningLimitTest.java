package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.QueueLimits;
import dev.fencing.Renewal;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A queue's running limit on PostgreSQL, on both engines: the jobs of the queue holding a valid
 * lease never outnumber it, counted at the database's clock.
 */
@FencingDatabase
class RunningLimitTest {

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void setLimitsAnswersTheLimitsItReplacesAndLimitsReadsThem(
      PostgresFencing.Engine engine, TestSchema schema) {
    FencedQueue queue = fencing(engine, schema.sharedPool(), schema).queue();

    assertThat(queue.limits("q")).isEqualTo(QueueLimits.NONE);
    assertThat(queue.setLimits("q", QueueLimits.maxRunning(5))).isEqualTo(QueueLimits.NONE);
    assertThat(queue.setLimits("q", QueueLimits.maxRunning(2)))
        .isEqualTo(QueueLimits.maxRunning(5));
    assertThat(queue.limits("q")).isEqualTo(QueueLimits.maxRunning(2));
    assertThat(queue.limits("other")).isEqualTo(QueueLimits.NONE);
    assertThat(queue.setLimits("q", QueueLimits.NONE)).isEqualTo(QueueLimits.maxRunning(2));
    assertThat(queue.limits("q")).isEqualTo(QueueLimits.NONE);
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void theSameOwnerClaimingTwiceHoldsTwoSlotsAndALimitSetIsObeyedByTheNextClaim(
      PostgresFencing.Engine engine, TestSchema schema) {
    FencedQueue queue = fencing(engine, schema.sharedPool(), schema).queue();
    queue.enqueueAll("q", Collections.nCopies(10, "{}"));
    queue.setLimits("q", QueueLimits.maxRunning(2));

    assertThat(queue.claim("q", "w", Duration.ofMinutes(1))).isPresent();
    assertThat(queue.claim("q", "w", Duration.ofMinutes(1))).isPresent();
    assertThat(queue.claimBatch("q", "w", Duration.ofMinutes(1), 5)).isEmpty();
    assertThat(queue.claimBatch("other", "w", Duration.ofMinutes(1), 5)).isEmpty();

    queue.setLimits("q", QueueLimits.maxRunning(5));
    assertThat(queue.claimBatch("q", "w", Duration.ofMinutes(1), 10)).hasSize(3);
    queue.setLimits("q", QueueLimits.NONE);
    assertThat(queue.claimBatch("q", "w", Duration.ofMinutes(1), 10)).hasSize(5);
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void anEndedOrExpiredLeaseFreesItsSlotAndAZombieIsRefused(
      PostgresFencing.Engine engine, TestSchema schema) throws Exception {
    FencedQueue queue = fencing(engine, schema.sharedPool(), schema).queue();
    queue.enqueueAll("q", Collections.nCopies(10, "{}"));
    queue.setLimits("q", QueueLimits.maxRunning(2));
    Job done = queue.claim("q", "a", Duration.ofMinutes(1)).orElseThrow();
    Job zombie = queue.claim("q", "z", Duration.ofSeconds(2)).orElseThrow();
    assertThat(queue.claim("q", "b", Duration.ofMinutes(1))).isEmpty();

    queue.complete(done.lease(), "{}");
    Job next = queue.claim("q", "b", Duration.ofMinutes(1)).orElseThrow();
    assertThat(queue.claim("q", "c", Duration.ofMinutes(1))).isEmpty();
    Thread.sleep(Duration.between(Instant.now(), zombie.lease().expiresAt()).toMillis() + 200);
    assertThat(queue.claimBatch("q", "c", Duration.ofMinutes(1), 5))
        .as("the zombie's lease ran out: one slot free")
        .hasSize(1);
    assertThat(queue.renewAll(List.of(zombie.lease()), Duration.ofMinutes(1)).getFirst())
        .isInstanceOf(Renewal.Lost.class);
    assertThat(queue.renewAll(List.of(next.lease()), Duration.ofMinutes(1)).getFirst())
        .isInstanceOf(Renewal.Renewed.class);
    assertThat(validLeases(engine, schema.dataSource(), schema.name())).isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void renewalsUnderTheLimitKeepTheLeaseAndItsSlot(PostgresFencing.Engine engine, TestSchema schema)
      throws Exception {
    FencedQueue queue = fencing(engine, schema.sharedPool(), schema).queue();
    queue.enqueueAll("q", Collections.nCopies(3, "{}"));
    queue.setLimits("q", QueueLimits.maxRunning(2));
    // four renewals 600 ms apart hold the slots for 2.4 s, longer than one lease, with 1.4 s of
    // each lease to spare for a pause on a busy machine
    Duration length = Duration.ofSeconds(2);
    List<Job> jobs = queue.claimBatch("q", "w", length, 2);
    assertThat(jobs).hasSize(2);
    Lease lease = jobs.getFirst().lease();
    for (int i = 0; i < 4; i++) {
      Thread.sleep(600);
      lease = queue.renew(lease, length);
      queue.renew(jobs.get(1).lease(), length);
      assertThat(queue.claim("q", "other", Duration.ofMinutes(1))).isEmpty();
    }
    queue.complete(lease, "{}");
    assertThat(queue.claim("q", "other", Duration.ofMinutes(1))).isPresent();
  }

  /**
   * The race the TLA+ model found ({@code spec/LimitRenewWithoutLock.cfg}): a renewal that starts
   * before its lease runs out and is applied after a claim counted that lease expired would make it
   * valid again next to the claim's new lease. Here the renewal is held up by a row lock of the
   * test's own (as a slow network or a pause would hold it) across the expiry and the claim. Judged
   * at its transaction's start and without the limit's lock, it was accepted: two valid leases
   * under a limit of one.
   */
  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aRenewalHeldUpAcrossItsExpiryAndAClaimIsRefused(
      PostgresFencing.Engine engine, TestSchema schema) throws Exception {
    DataSource pool = schema.pooledDataSource(8);
    FencedQueue queue = fencing(engine, pool, schema).queue();
    queue.enqueueAll("q", Collections.nCopies(3, "{}"));
    queue.setLimits("q", QueueLimits.maxRunning(1));
    Job slow = queue.claim("q", "slow", Duration.ofSeconds(3)).orElseThrow();

    CompletableFuture<List<Renewal>> renewal;
    CompletableFuture<List<Job>> claim;
    // threads of their own: the common pool may have one, which the held-up renewal occupies
    try (ExecutorService threads = Executors.newFixedThreadPool(2);
        Connection blocker = schema.dataSource().getConnection()) {
      blocker.setAutoCommit(false);
      lockLeaseRow(engine, blocker, schema.name(), slow.id());
      renewal =
          CompletableFuture.supplyAsync(
              () -> queue.renewAll(List.of(slow.lease()), Duration.ofMinutes(1)), threads);
      awaitWaitingLocks(schema.dataSource(), 1);
      Thread.sleep(Duration.between(Instant.now(), slow.lease().expiresAt()).toMillis() + 300);
      claim =
          CompletableFuture.supplyAsync(
              () -> queue.claimBatch("q", "next", Duration.ofMinutes(1), 1), threads);
      Thread.sleep(500);
      blocker.commit();
    }

    List<Renewal> renewed = renewal.get(30, TimeUnit.SECONDS);
    List<Job> claimed = claim.get(30, TimeUnit.SECONDS);
    assertThat(validLeases(engine, schema.dataSource(), schema.name()))
        .as("valid leases under a limit of 1: renewal %s, claim %s", renewed, claimed)
        .isLessThanOrEqualTo(1);
    // the claim after the renewal, which counts its lease, or the renewal after the claim, judged
    // at a time its lease had run out
    if (renewed.getFirst() instanceof Renewal.Lost lost) {
      assertThat(lost.refusal()).isInstanceOf(FencedOutcome.LeaseExpired.class);
      assertThat(claimed).hasSize(1);
    } else {
      assertThat(claimed).isEmpty();
    }
  }

  /**
   * The renewal's other guard: judged at the time it holds the lock, not at its transaction's
   * start. A claim holds the limit's lock and is slow between taking it and counting (here a
   * trigger of the test's own makes it wait while it deletes another slot, until the renewed lease
   * has run out); a renewal that starts meanwhile, before that lease runs out, waits for the lock.
   * Judged at its start, it was accepted after the claim had counted its lease expired and handed
   * its slot out: three valid leases under a limit of two.
   */
  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aRenewalWaitingForTheLockIsJudgedWhenItHoldsIt(
      PostgresFencing.Engine engine, TestSchema schema) throws Exception {
    DataSource pool = schema.pooledDataSource(8);
    FencedQueue queue = fencing(engine, pool, schema).queue();
    queue.enqueueAll("q", Collections.nCopies(6, "{}"));
    queue.setLimits("q", QueueLimits.maxRunning(2));
    Job first = queue.claim("q", "first", Duration.ofSeconds(2)).orElseThrow();
    Job renewed = queue.claim("q", "renewer", Duration.ofSeconds(5)).orElseThrow();
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "create function \""
              + schema.name()
              + "\".slow_delete() returns trigger language plpgsql as $$ begin"
              + " if old.job_id = "
              + first.id()
              + " then perform pg_sleep_until('"
              + renewed.lease().expiresAt().plusMillis(300)
              + "'::timestamptz); end if; return old; end $$");
      s.execute(
          "create trigger slow_delete before delete on \""
              + schema.name()
              + "\".fencing_limit_slot for each row execute function \""
              + schema.name()
              + "\".slow_delete()");
    }
    Thread.sleep(Duration.between(Instant.now(), first.lease().expiresAt()).toMillis() + 100);

    try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
      Future<List<Job>> claim =
          threads.submit(() -> queue.claimBatch("q", "next", Duration.ofMinutes(1), 2));
      awaitSleepingClaim(schema.dataSource());
      assertThat(Instant.now()).isBefore(renewed.lease().expiresAt().minusMillis(500));
      Future<List<Renewal>> renewal =
          threads.submit(() -> queue.renewAll(List.of(renewed.lease()), Duration.ofMinutes(1)));
      List<Job> claimed = claim.get(30, TimeUnit.SECONDS);
      List<Renewal> renewals = renewal.get(30, TimeUnit.SECONDS);

      assertThat(validLeases(engine, schema.dataSource(), schema.name()))
          .as("valid leases under a limit of 2: renewal %s, claim %s", renewals, claimed)
          .isLessThanOrEqualTo(2);
      assertThat(claimed).hasSize(2);
      assertThat(renewals.getFirst()).isInstanceOf(Renewal.Lost.class);
    }
  }

  private static void awaitSleepingClaim(DataSource dataSource) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      while (System.nanoTime() < deadline) {
        try (ResultSet r =
            s.executeQuery("select count(*) from pg_stat_activity where wait_event = 'PgSleep'")) {
          r.next();
          if (r.getInt(1) >= 1) {
            return;
          }
        }
        Thread.sleep(10);
      }
    }
    throw new AssertionError("no claim slowed by the test's trigger");
  }

  private static void lockLeaseRow(
      PostgresFencing.Engine engine, Connection c, String schema, long jobId) throws Exception {
    String sql =
        engine == PostgresFencing.Engine.UPDATE_IN_PLACE
            ? "select 1 from \"" + schema + "\".fencing_job where id = ? for update"
            : "select 1 from \""
                + schema
                + "\".fencing_append_claim c where c.id = (select h.claim_id from \""
                + schema
                + "\".fencing_append_handout h where h.job_id = ? order by h.epoch desc limit 1)"
                + " for update";
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setLong(1, jobId);
      try (ResultSet r = s.executeQuery()) {
        assertThat(r.next()).isTrue();
      }
    }
  }

  private static void awaitWaitingLocks(DataSource dataSource, int n) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      while (System.nanoTime() < deadline) {
        try (ResultSet r = s.executeQuery("select count(*) from pg_locks where not granted")) {
          r.next();
          if (r.getInt(1) >= n) {
            return;
          }
        }
        Thread.sleep(10);
      }
    }
    throw new AssertionError("no statement waited for the test's lock");
  }

  /**
   * The jobs of queue {@code q} holding a valid lease, at the database's clock, in one statement:
   * its snapshot is taken before the clock is read, so it never counts more than held at once.
   */
  static int validLeases(PostgresFencing.Engine engine, DataSource dataSource, String schema)
      throws Exception {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(validLeasesSql(engine, schema, "count(*)"))) {
      r.next();
      return r.getInt(1);
    }
  }

  static String validLeasesSql(PostgresFencing.Engine engine, String schema, String what) {
    String q = "\"" + schema + "\".";
    return engine == PostgresFencing.Engine.UPDATE_IN_PLACE
        ? "select "
            + what
            + " from (select clock_timestamp() t) x, "
            + q
            + "fencing_job j where j.queue = 'q' and j.status = 'running'"
            + " and j.lease_expires_at > x.t"
        : "select "
            + what
            + " from (select clock_timestamp() t) x, "
            + q
            + "fencing_append_claim c join "
            + q
            + "fencing_append_handout h on h.claim_id = c.id"
            + " where c.queue = 'q' and c.live and c.lease_expires_at > x.t"
            + " and not (h.job_id = any(c.given_back))"
            + " and not exists (select 1 from "
            + q
            + "fencing_append_done d where d.job_id = h.job_id)";
  }

  static PostgresFencing fencing(
      PostgresFencing.Engine engine, DataSource dataSource, TestSchema schema) {
    return PostgresFencing.builder(dataSource)
        .schema(schema.name())
        .engine(engine)
        .maxAttempts(1000)
        .build();
  }

  /** A commit refused, as a zombie's is. */
  static boolean refused(Runnable write) {
    try {
      write.run();
      return false;
    } catch (FencedOffException e) {
      return true;
    }
  }
}
