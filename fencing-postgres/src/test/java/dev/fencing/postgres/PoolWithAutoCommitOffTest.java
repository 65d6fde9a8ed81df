package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.Renewal;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A pool that hands out connections with autoCommit=false broke the queue silently: the pool rolled
 * back every claim and commit when the connection came back, so two workers could hold one job at
 * the same epoch. Every statement now commits whatever the connection's mode. On both engines.
 */
@FencingDatabase
class PoolWithAutoCommitOffTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  private TestSchema schema;
  private HikariDataSource pool;

  @BeforeEach
  void build(TestSchema schema) {
    this.schema = schema;
    HikariConfig config = new HikariConfig();
    config.setDataSource(schema.dataSource());
    config.setAutoCommit(false);
    config.setMaximumPoolSize(4);
    config.setPoolName("autocommit-off");
    pool = new HikariDataSource(config);
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void everyWriteOfTheQueuePersists(PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    FencedQueue observer = observer(engine);
    List<Long> ids = queue.enqueueAll("q", Collections.nCopies(5, "{}"));
    long single = queue.enqueue("q", "{}");
    for (long id : ids) {
      assertThat(observer.find(id)).isPresent();
    }
    assertThat(observer.find(single)).isPresent();

    Job a = queue.claim("q", "w1", LONG).orElseThrow();
    assertThat(state(observer, a.id())).isEqualTo(JobState.RUNNING);
    Job b = queue.claim("q", "w2", LONG).orElseThrow();
    assertThat(b.id()).isNotEqualTo(a.id());

    queue.complete(a.lease(), "{\"a\": 1}");
    assertThat(observer.find(a.id()).orElseThrow().result()).isEqualTo("{\"a\": 1}");

    List<Job> more = queue.claimBatch("q", "w3", LONG, 3);
    assertThat(more)
        .hasSize(3)
        .allSatisfy(j -> assertThat(state(observer, j.id())).isEqualTo(JobState.RUNNING));

    List<Renewal> renewals =
        queue.renewAll(more.stream().map(Job::lease).toList(), Duration.ofMinutes(30));
    for (Renewal renewal : renewals) {
      Lease renewed = renewal.lease();
      assertThat(observer.find(renewed.jobId()).orElseThrow().leaseExpiresAt())
          .isEqualTo(renewed.expiresAt());
    }
    Lease renewedOnce = queue.renew(b.lease(), Duration.ofMinutes(20));
    assertThat(observer.find(b.id()).orElseThrow().leaseExpiresAt())
        .isEqualTo(renewedOnce.expiresAt());

    assertThat(
            queue.completeAll(
                List.of(
                    new FencedQueue.Completion(more.get(0).lease(), "{\"m\": 0}"),
                    new FencedQueue.Completion(more.get(1).lease(), "{\"m\": 1}"))))
        .allMatch(o -> o instanceof FencedOutcome.Accepted);
    assertThat(state(observer, more.get(0).id())).isEqualTo(JobState.COMPLETED);
    assertThat(state(observer, more.get(1).id())).isEqualTo(JobState.COMPLETED);

    queue.fail(more.get(2).lease(), "boom", Duration.ofHours(1));
    JobSnapshot failed = observer.find(more.get(2).id()).orElseThrow();
    assertThat(failed.state()).isEqualTo(JobState.PENDING);
    assertThat(failed.lastError()).isEqualTo("boom");

    queue.release(b.lease());
    JobSnapshot released = observer.find(b.id()).orElseThrow();
    assertThat(released.state()).isEqualTo(JobState.PENDING);
    assertThat(released.attempts()).isZero();
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void twoClaimersNeverGetTheSameJobAtTheSameEpoch(PostgresFencing.Engine engine) throws Exception {
    FencedQueue queue = queue(engine);
    int jobs = 60;
    queue.enqueueAll("q", Collections.nCopies(jobs, "{}"));
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      List<Future<List<String>>> claimers = new ArrayList<>();
      for (String owner : List.of("w1", "w2")) {
        claimers.add(
            threads.submit(
                () -> {
                  List<String> claimed = new ArrayList<>();
                  for (int i = 0; i < jobs; i++) {
                    queue
                        .claim("q", owner, LONG)
                        .ifPresent(j -> claimed.add(j.id() + "@" + j.epoch().value()));
                  }
                  return claimed;
                }));
      }
      List<String> all = new ArrayList<>();
      for (Future<List<String>> claimer : claimers) {
        all.addAll(claimer.get());
      }
      Set<String> distinct = new HashSet<>(all);
      assertThat(all).hasSize(jobs);
      assertThat(distinct).hasSize(jobs);
    } finally {
      threads.shutdownNow();
    }
  }

  private static JobState state(FencedQueue observer, long id) {
    return observer.find(id).orElseThrow().state();
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void maintenanceRemovesAndVacuumsThroughConnectionsWithAutoCommitOff(
      PostgresFencing.Engine engine) throws Exception {
    FencedQueue queue = queue(engine);
    FencedQueue observer = observer(engine);
    long id = queue.enqueue("q", "{}");
    queue.complete(queue.claim("q", "w1", LONG).orElseThrow().lease(), "{}");
    finishedDaysAgo(engine, 8, id);
    dev.fencing.Maintenance m =
        PostgresFencing.builder(pool)
            .schema(schema.name())
            .engine(engine)
            .install(false)
            .build()
            .maintenance()
            .build();
    // the first round also runs VACUUM, which cannot run inside a transaction block
    assertThat(m.runRound().jobsRemoved()).isEqualTo(1);
    assertThat(observer.find(id)).isEmpty();
    assertThat(m.runRound()).isEqualTo(dev.fencing.Maintenance.Report.NOTHING);
  }

  /** The queue under test, on the pool whose connections come with autoCommit=false. */
  private FencedQueue queue(PostgresFencing.Engine engine) {
    return PostgresFencing.builder(pool).schema(schema.name()).engine(engine).build().queue();
  }

  /** Reads through connections of its own, in autocommit: sees only what was committed. */
  private FencedQueue observer(PostgresFencing.Engine engine) {
    return PostgresFencing.builder(schema.dataSource())
        .schema(schema.name())
        .engine(engine)
        .install(false)
        .build()
        .queue();
  }

  /**
   * Makes the finished job {@code id} look finished {@code days} days ago, in its engine's rows.
   */
  private void finishedDaysAgo(PostgresFencing.Engine engine, int days, long id) throws Exception {
    String ago = "now() - interval '" + days + " days'";
    List<String> updates =
        switch (engine) {
          case UPDATE_IN_PLACE ->
              List.of("update fencing_job set finished_at = " + ago + " where id = " + id);
          case APPEND_ONLY ->
              List.of(
                  "update fencing_append_done set finished_at = " + ago + " where job_id = " + id,
                  "update fencing_append_claim set claimed_at = " + ago + " where not live");
        };
    try (var c = schema.dataSource().getConnection();
        var s = c.createStatement()) {
      s.execute("set search_path to \"" + schema.name() + "\"");
      for (String update : updates) {
        s.execute(update);
      }
    }
  }
}
