package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.SchemaNotInstalledException;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A data source that hands out the same connection every time and never resets it: the queue must
 * commit what it writes, roll back what failed (or the connection is stuck in an aborted
 * transaction), and give the connection back in the auto-commit mode it got it in. On both engines.
 */
@FencingDatabase
class OneConnectionWithoutAPoolTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  private TestSchema schema;

  @BeforeEach
  void build(TestSchema schema) {
    this.schema = schema;
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void withAutoCommitOffEveryWriteCommitsAndEveryFailureRollsBack(PostgresFencing.Engine engine)
      throws Exception {
    FencedQueue observer = observer(engine);
    try (OneConnection one = new OneConnection(schema.dataSource(), false)) {
      FencedQueue queue =
          PostgresFencing.builder(one.dataSource())
              .schema(schema.name())
              .engine(engine)
              .install(false)
              .build()
              .queue();

      List<Long> ids = queue.enqueueAll("q", List.of("{}", "{}"));
      assertThat(one.connection().getAutoCommit()).isFalse();
      assertThat(observer.find(ids.get(0))).as("committed").isPresent();

      assertThatThrownBy(() -> queue.enqueueAll("q", List.of("{}", "{oops")))
          .isInstanceOf(IllegalArgumentException.class);
      Job job = queue.claim("q", "w1", LONG).orElseThrow();
      assertThat(one.connection().getAutoCommit()).isFalse();

      assertThatThrownBy(() -> queue.complete(job.lease(), "{oops"))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(queue.complete(job.lease(), "{\"ok\": 1}").repeat()).isFalse();
      assertThat(observer.find(job.id()).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
      assertThat(observer.claimBatch("q", "w2", LONG, 10))
          .as("the batch with the bad payload left nothing behind")
          .extracting(Job::id)
          .containsExactly(ids.get(1));
    }
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void withAutoCommitOnTheConnectionIsHandedBackWithAutoCommitOn(PostgresFencing.Engine engine)
      throws Exception {
    FencedQueue observer = observer(engine);
    try (OneConnection one = new OneConnection(schema.dataSource(), true)) {
      FencedQueue queue =
          PostgresFencing.builder(one.dataSource())
              .schema(schema.name())
              .engine(engine)
              .install(false)
              .build()
              .queue();

      long id = queue.enqueueAll("q", List.of("{}")).getFirst();

      assertThat(one.connection().getAutoCommit()).isTrue();
      assertThat(observer.find(id)).isPresent();
    }
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aBatchComesBackInIdOrder(PostgresFencing.Engine engine) {
    FencedQueue observer = observer(engine);
    List<Long> ids = observer.enqueueAll("q", List.of("{}", "{}", "{}"));
    Job first = observer.claim("q", "w1", LONG).orElseThrow();
    observer.release(first.lease());
    List<Job> batch = observer.claimBatch("q", "w1", LONG, 3);
    assertThat(batch).extracting(Job::id).containsExactlyElementsOf(ids);
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void withoutInstallNothingIsCreated(PostgresFencing.Engine engine) {
    String empty = schema.database().freshSchema("e");
    try {
      FencedQueue uninstalled =
          PostgresFencing.builder(schema.dataSource())
              .schema(empty)
              .engine(engine)
              .install(false)
              .build()
              .queue();
      assertThatThrownBy(() -> uninstalled.enqueue("q", "{}"))
          .isInstanceOf(SchemaNotInstalledException.class)
          .hasMessageContaining("found no fencing tables of this version")
          .hasMessageContaining(Rows.jobTable(engine));
    } finally {
      schema.database().dropSchema(empty);
    }
  }

  @Test
  void transientRetriesRangeFromZeroToAHundred() {
    assertThat(
            PostgresFencing.builder(schema.dataSource())
                .schema(schema.name())
                .install(false)
                .transientRetries(0)
                .build()
                .queue())
        .isNotNull();
    assertThat(
            PostgresFencing.builder(schema.dataSource())
                .schema(schema.name())
                .install(false)
                .transientRetries(100)
                .build()
                .queue())
        .isNotNull();
    assertThatThrownBy(
            () ->
                PostgresFencing.builder(schema.dataSource()).transientRetries(101).build().queue())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("transientRetries must be between 0 and 100, but was 101");
  }

  /** A queue on connections of its own, which installs the schema for {@code engine}. */
  private FencedQueue observer(PostgresFencing.Engine engine) {
    return PostgresFencing.builder(schema.dataSource())
        .schema(schema.name())
        .engine(engine)
        .build()
        .queue();
  }
}
