package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing.Engine;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The schema records its engine: a handle built with the other one is refused at {@code build()}
 * (it used to idle, claiming from tables no producer filled), a handle built without one follows
 * the schema, and a schema installed before engines were recorded gets the engine its jobs are in.
 */
@FencingDatabase
class EngineRecordedInTheSchemaTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void aHandleOfTheOtherEngineIsRefusedAtBuildWithOrWithoutInstall(TestSchema schema)
      throws SQLException {
    PostgresFencing producer =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .engine(Engine.APPEND_ONLY)
            .build();
    assertThat(producer.engine()).isEqualTo(Engine.APPEND_ONLY);
    assertThat(recorded(schema)).isEqualTo("append_only");

    assertThatThrownBy(
            () ->
                PostgresFencing.builder(schema.dataSource())
                    .schema(schema.name())
                    .engine(Engine.UPDATE_IN_PLACE)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("schema " + schema.name() + " records engine APPEND_ONLY")
        .hasMessageContaining("engine(Engine.UPDATE_IN_PLACE)");

    // without install, build() reads nothing; the first call that needs the engine refuses
    PostgresFencing idle =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .install(false)
            .engine(Engine.UPDATE_IN_PLACE)
            .build();
    for (int call = 0; call < 2; call++) {
      assertThatThrownBy(() -> idle.queue().claim("q", "w", LONG))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("records engine APPEND_ONLY");
    }
    assertThatThrownBy(() -> idle.queue().enqueue("q", "{}"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(idle::engine).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(idle::admin).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> idle.maintenance().build().runRound())
        .isInstanceOf(IllegalStateException.class);
    assertThat(recorded(schema)).isEqualTo("append_only");
  }

  @Test
  void aHandleWithoutAnEngineFollowsTheSchemaAndClaimsWhatItsProducersEnqueued(TestSchema schema) {
    PostgresFencing producer =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .engine(Engine.APPEND_ONLY)
            .build();
    long id = producer.queue().enqueue("q", "{}");

    for (boolean install : new boolean[] {true, false}) {
      PostgresFencing worker =
          PostgresFencing.builder(schema.dataSource())
              .schema(schema.name())
              .install(install)
              .build();
      assertThat(worker.engine()).isEqualTo(Engine.APPEND_ONLY);
      assertThat(worker.toString()).contains("engine=APPEND_ONLY");
    }
    PostgresFencing worker =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    Job job = worker.queue().claim("q", "w", LONG).orElseThrow();
    assertThat(job.id()).isEqualTo(id);
  }

  @Test
  void aHandleBuiltWithoutInstallReadsTheEngineAtItsFirstCall(TestSchema schema) {
    PostgresFencing early =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(false).build();
    assertThat(early.toString()).contains("engine=not read yet");
    PostgresFencing producer =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .engine(Engine.APPEND_ONLY)
            .build();
    long id = producer.queue().enqueue("q", "{}");

    assertThat(early.queue().claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);
    assertThat(early.engine()).isEqualTo(Engine.APPEND_ONLY);
    assertThat(early.toString()).contains("engine=APPEND_ONLY");
  }

  @Test
  void theFirstInstallWithoutAnEngineRecordsUpdateInPlace(TestSchema schema) throws SQLException {
    PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    assertThat(recorded(schema)).isEqualTo("update_in_place");
    assertThatThrownBy(
            () ->
                PostgresFencing.builder(schema.dataSource())
                    .schema(schema.name())
                    .engine(Engine.APPEND_ONLY)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("records engine UPDATE_IN_PLACE");
  }

  @Test
  void aSchemaInstalledBeforeEnginesWereRecordedGetsTheEngineItsJobsAreIn(TestSchema schema)
      throws SQLException {
    PostgresFencing before =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .engine(Engine.APPEND_ONLY)
            .build();
    long id = before.queue().enqueue("q", "{}");
    execute(schema, "drop table " + schema.name() + ".fencing_schema");

    // without install, nothing is recorded and nothing refused: the handle's own engine is used
    PostgresFencing readOnly =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .install(false)
            .engine(Engine.APPEND_ONLY)
            .build();
    assertThat(readOnly.engine()).isEqualTo(Engine.APPEND_ONLY);

    // the first install records the engine that holds the jobs, not the default
    PostgresFencing after =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    assertThat(recorded(schema)).isEqualTo("append_only");
    assertThat(after.engine()).isEqualTo(Engine.APPEND_ONLY);
    assertThat(after.queue().claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);
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
