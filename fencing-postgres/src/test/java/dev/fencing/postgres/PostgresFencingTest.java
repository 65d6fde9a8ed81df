package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.postgres.admin.PostgresAdmin;
import dev.fencing.postgres.admin.QueueSummary;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

@FencingDatabase
class PostgresFencingTest {

  @Test
  void schemaNamesThatAreNotPlainIdentifiersAreRefusedBeforeAnySql(TestSchema schema)
      throws Exception {
    for (String bad : List.of("x; drop table", "Jobs", "1abc", "", "a\"b", "x".repeat(64))) {
      assertThatThrownBy(
              () -> PostgresFencing.builder(schema.dataSource()).schema(bad).build().queue())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("schema")
          .hasMessageContaining("'" + bad + "'");
    }
    try (Connection c = schema.dataSource().getConnection();
        ResultSet r =
            c.createStatement()
                .executeQuery("select count(*) from pg_namespace where nspname like 'x%'")) {
      r.next();
      assertThat(r.getInt(1)).isZero();
    }
  }

  @Test
  void theAdminOfTheAppendOnlyEngineShowsItsOwnTablesNotTheOthers(TestSchema schema) {
    PostgresFencing fencing =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .engine(PostgresFencing.Engine.APPEND_ONLY)
            .build();
    long id = fencing.queue().enqueue("q", "{}");
    PostgresAdmin admin =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build().admin();
    assertThat(admin.queues(false)).containsExactly(new QueueSummary("q", 1, 0, 0, null));
    assertThat(admin.job(id).orElseThrow().job().state()).isEqualTo(dev.fencing.JobState.PENDING);
  }

  @Test
  void settingsOutOfRangeAreRefusedByName(TestSchema schema) {
    assertThatThrownBy(
            () -> PostgresFencing.builder(schema.dataSource()).maxAttempts(0).build().queue())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxAttempts")
        .hasMessageContaining("0");
    assertThatThrownBy(
            () -> PostgresFencing.builder(schema.dataSource()).transientRetries(-1).build().queue())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("transientRetries");
  }

  @Test
  void installingTwiceAndFromManyThreadsAtOnceIsHarmless(TestSchema schema) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<FencedQueue>> installs = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        installs.add(
            pool.submit(
                () ->
                    PostgresFencing.builder(schema.dataSource())
                        .schema(schema.name())
                        .build()
                        .queue()));
      }
      for (Future<FencedQueue> install : installs) {
        assertThat(install.get()).isNotNull();
      }
    } finally {
      pool.shutdownNow();
    }
    FencedQueue queue =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build().queue();
    assertThat(queue.claim("q", "w", Duration.ofSeconds(1))).isEmpty();
  }

  @Test
  void enqueueAllTakesMoreJobsThanOneStatementCanBindAllOrNone(TestSchema schema) {
    FencedQueue queue =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build().queue();
    List<Long> ids = queue.enqueueAll("big", java.util.Collections.nCopies(25_000, "{}"));
    assertThat(ids).hasSize(25_000).doesNotHaveDuplicates();
    List<String> withBadLast = new ArrayList<>(java.util.Collections.nCopies(20_000, "{}"));
    withBadLast.add("{oops");
    assertThatThrownBy(() -> queue.enqueueAll("big2", withBadLast))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("payloads[20000]");
    assertThat(queue.claimBatch("big2", "w", Duration.ofMinutes(1), 10)).isEmpty();
  }

  @Test
  void theSchemaSqlShipsInTheJar() {
    assertThat(PostgresFencing.schemaSql()).contains("CREATE TABLE IF NOT EXISTS fencing_job");
  }

  @Test
  void manyThreadsNeverHoldTheSameJobAtTheSameEpochAndFinishEachOnce(TestSchema schema)
      throws Exception {
    FencedQueue queue =
        PostgresFencing.builder(schema.pooledDataSource(8)).schema(schema.name()).build().queue();
    int jobs = 400;
    List<Long> ids =
        queue.enqueueAll(
            "q", IntStream.range(0, jobs).mapToObj(i -> "{\"i\": " + i + "}").toList());
    Set<String> claims = Collections.synchronizedSet(new HashSet<>());
    List<String> duplicates = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> workers = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        String owner = "t" + t;
        int batch = t % 2 == 0 ? 1 : 7;
        workers.add(
            pool.submit(
                () -> {
                  int done = 0;
                  while (true) {
                    List<Job> claimed = queue.claimBatch("q", owner, Duration.ofMinutes(5), batch);
                    if (claimed.isEmpty()) {
                      return done;
                    }
                    for (Job job : claimed) {
                      if (!claims.add(job.id() + "@" + job.epoch().value())) {
                        duplicates.add(job.id() + "@" + job.epoch().value());
                      }
                      queue.complete(job.lease(), "{\"by\": \"" + owner + "\"}");
                      done++;
                    }
                  }
                }));
      }
      int completed = 0;
      for (Future<Integer> worker : workers) {
        completed += worker.get();
      }
      assertThat(completed).isEqualTo(jobs);
    } finally {
      pool.shutdownNow();
    }
    assertThat(duplicates).isEmpty();
    assertThat(claims).hasSize(jobs);
    for (long id : ids) {
      assertThat(queue.find(id).orElseThrow())
          .satisfies(
              row -> {
                assertThat(row.state()).isEqualTo(JobState.COMPLETED);
                assertThat(row.epoch()).isEqualTo(1);
              });
    }
  }
}
