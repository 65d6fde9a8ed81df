package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Job;
import dev.fencing.SchemaNotInstalledException;
import dev.fencing.postgres.PostgresFencing.Engine;
import dev.fencing.postgres.internal.PostgresComponent;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The schema records its engine: a handle built with the other one is refused at {@code build()}
 * (it used to idle, claiming from tables no producer filled), a handle built without one follows
 * the schema, a schema that records none gets {@link Engine#APPEND_ONLY}, and a schema installed
 * before engines were recorded gets the engine its jobs are in.
 */
@FencingDatabase
class EngineRecordedInTheSchemaTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @ParameterizedTest
  @EnumSource(Engine.class)
  void aHandleOfTheOtherEngineIsRefusedAtBuildWithOrWithoutInstall(Engine engine, TestSchema schema)
      throws SQLException {
    Engine other = other(engine);
    PostgresFencing producer =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).engine(engine).build();
    assertThat(producer.engine()).isEqualTo(engine);
    assertThat(recorded(schema)).isEqualTo(stored(engine));

    assertThatThrownBy(
            () ->
                PostgresFencing.builder(schema.dataSource())
                    .schema(schema.name())
                    .engine(other)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("schema " + schema.name() + " records engine " + engine)
        .hasMessageContaining("engine(Engine." + other + ")");

    // without install, build() reads nothing; the first call that needs the engine refuses
    PostgresFencing idle =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .install(false)
            .engine(other)
            .build();
    for (int call = 0; call < 2; call++) {
      assertThatThrownBy(() -> idle.queue().claim("q", "w", LONG))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("records engine " + engine);
    }
    assertThatThrownBy(() -> idle.queue().enqueue("q", "{}"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(idle::engine).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(idle::admin).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> idle.maintenance().build().runRound())
        .isInstanceOf(IllegalStateException.class);
    assertThat(recorded(schema)).isEqualTo(stored(engine));
  }

  /**
   * A handle without {@code engine(...)} follows the schema, decides its engine once and builds one
   * graph: on a schema that records the engine other than the default, it used to build a second
   * graph (its own listening connection, its own statements) for the engine the schema records.
   */
  @ParameterizedTest
  @EnumSource(Engine.class)
  void aHandleWithoutAnEngineFollowsTheSchemaInOneGraphAndClaimsWhatItsProducersEnqueued(
      Engine engine, TestSchema schema) {
    PostgresFencing producer =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).engine(engine).build();
    List<Long> ids =
        List.of(producer.queue().enqueue("q", "{}"), producer.queue().enqueue("q", "{}"));

    for (boolean install : new boolean[] {true, false}) {
      AtomicInteger graphs = new AtomicInteger();
      PostgresFencing worker =
          PostgresFencing.builder(schema.dataSource())
              .schema(schema.name())
              .install(install)
              .build(
                  (dataSource, listening, config) -> {
                    graphs.incrementAndGet();
                    return PostgresComponent.create(dataSource, listening, config);
                  });
      Job job = worker.queue().claim("q", "w", LONG).orElseThrow();
      assertThat(job.id()).isIn(ids);
      assertThat(worker.engine()).isEqualTo(engine);
      assertThat(worker.toString()).contains("engine=" + engine);
      assertThat(worker.admin().job(job.id())).isPresent();
      worker.maintenance().build().runRound();
      worker.ownership().holder("r");
      assertThat(graphs).as("graphs built by a handle (install %s)", install).hasValue(1);
      worker.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void aHandleBuiltWithoutInstallReadsTheEngineAtItsFirstCall(Engine engine, TestSchema schema) {
    PostgresFencing early =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(false).build();
    assertThat(early.toString()).contains("engine=not read yet");
    PostgresFencing producer =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).engine(engine).build();
    long id = producer.queue().enqueue("q", "{}");

    assertThat(early.queue().claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);
    assertThat(early.engine()).isEqualTo(engine);
    assertThat(early.toString()).contains("engine=" + engine);
  }

  @Test
  void theFirstInstallWithoutAnEngineRecordsAppendOnly(TestSchema schema) throws SQLException {
    PostgresFencing first =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    assertThat(recorded(schema)).isEqualTo("append_only");
    assertThat(first.engine()).isEqualTo(Engine.APPEND_ONLY);
    assertThatThrownBy(
            () ->
                PostgresFencing.builder(schema.dataSource())
                    .schema(schema.name())
                    .engine(Engine.UPDATE_IN_PLACE)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("records engine APPEND_ONLY");
  }

  @Test
  void aHandleWithoutAnEngineOnASchemaThatRecordsNoneRunsAppendOnlyUntilOneIsInstalled(
      TestSchema schema) {
    // without install, nothing is recorded: the handle takes the default, and reads the schema
    // again at its next call, since a schema without tables decides nothing yet
    PostgresFencing uninstalled =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(false).build();
    assertThat(uninstalled.engine()).isEqualTo(Engine.APPEND_ONLY);
    assertThat(uninstalled.toString()).contains("engine=not read yet");
    // its queue, used while nothing is installed, is not kept on the default engine
    assertThatThrownBy(() -> uninstalled.queue().enqueue("q", "{}"))
        .isInstanceOf(SchemaNotInstalledException.class);

    long id =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .engine(Engine.UPDATE_IN_PLACE)
            .build()
            .queue()
            .enqueue("q", "{}");
    assertThat(uninstalled.engine()).isEqualTo(Engine.UPDATE_IN_PLACE);
    assertThat(uninstalled.toString()).contains("engine=UPDATE_IN_PLACE");
    assertThat(uninstalled.queue().claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void aSchemaInstalledBeforeEnginesWereRecordedGetsTheEngineItsJobsAreIn(
      Engine engine, TestSchema schema) throws SQLException {
    PostgresFencing before =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).engine(engine).build();
    long id = before.queue().enqueue("q", "{}");
    // what a build from before engines (and versions) were recorded left
    execute(schema, "drop table " + schema.name() + ".fencing_schema");
    execute(schema, "drop table " + schema.name() + ".fencing_schema_version");

    // without install, nothing is recorded, and such a schema is refused: it is not at version 1
    PostgresFencing following =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(false).build();
    assertThatThrownBy(() -> following.queue().depth("q"))
        .isInstanceOf(dev.fencing.SchemaVersionException.class)
        .hasMessageContaining("records no version");

    // the first install records the engine that holds the jobs, whatever the default or the
    // handle's own
    PostgresFencing after =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).engine(engine).build();
    assertThat(recorded(schema)).isEqualTo(stored(engine));
    assertThat(after.engine()).isEqualTo(engine);
    assertThat(following.engine()).isEqualTo(engine);
    assertThat(following.queue().depth("q").pending()).isEqualTo(1);
    assertThat(after.queue().claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void aSchemaWhoseEngineRowWasLostFollowsTheTableThatHoldsItsJobs(Engine engine, TestSchema schema)
      throws SQLException {
    PostgresFencing before =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).engine(engine).build();
    before.queue().enqueue("q", "{}");
    execute(schema, "delete from " + schema.name() + ".fencing_schema");
    // a handle without one does not take the default when the other engine's table holds the jobs
    PostgresFencing following =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(false).build();
    assertThat(following.engine()).isEqualTo(engine);
    assertThat(following.queue().depth("q").pending()).isEqualTo(1);
  }

  @Test
  void anUnknownEngineInTheSchemaIsRefusedByName(TestSchema schema) throws SQLException {
    PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    execute(
        schema,
        "alter table "
            + schema.name()
            + ".fencing_schema drop constraint fencing_schema_engine_ck");
    execute(schema, "update " + schema.name() + ".fencing_schema set engine = 'columnar'");
    assertThatThrownBy(
            () -> PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'columnar'");
  }

  @Test
  void onlyOneEngineCanEverBeRecorded(TestSchema schema) throws SQLException {
    PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    assertThatThrownBy(
            () ->
                execute(
                    schema,
                    "insert into "
                        + schema.name()
                        + ".fencing_schema (one, engine) values (false, 'append_only')"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("fencing_schema_one_ck");
  }

  private static Engine other(Engine engine) {
    return engine == Engine.APPEND_ONLY ? Engine.UPDATE_IN_PLACE : Engine.APPEND_ONLY;
  }

  /** The engine's name in {@code fencing_schema}. */
  private static String stored(Engine engine) {
    return engine.name().toLowerCase(Locale.ROOT);
  }

  private static String recorded(TestSchema schema) throws SQLException {
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("select engine from " + schema.name() + ".fencing_schema")) {
      assertThat(r.next()).as("a row in fencing_schema").isTrue();
      String engine = r.getString(1);
      assertThat(r.next()).as("only one row in fencing_schema").isFalse();
      return engine;
    }
  }

  private static void execute(TestSchema schema, String sql) throws SQLException {
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
