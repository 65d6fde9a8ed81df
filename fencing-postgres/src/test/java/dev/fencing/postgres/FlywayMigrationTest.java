package dev.fencing.postgres;

import static dev.fencing.postgres.SchemaRows.EVERY_VERSION;
import static dev.fencing.postgres.SchemaRows.execute;
import static dev.fencing.postgres.SchemaRows.scalar;
import static dev.fencing.postgres.SchemaRows.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.postgres.PostgresFencing.Engine;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The migration scripts run by Flyway as docs/UPGRADING.md ("Running the scripts yourself") says:
 * on a fresh schema, on one the library's own {@code build()} migrated, on one a build from before
 * versions installed, and with the other engine picked by an {@code afterConnect} callback or by
 * {@code initSql} (with {@code SET}; {@code SET LOCAL} picks nothing); a handle with {@code
 * install(false)} then runs on the schema.
 */
@FencingDatabase
class FlywayMigrationTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  /** The configuration of docs/UPGRADING.md, on the test's schema. */
  private static FluentConfiguration flyway(TestSchema schema) {
    return Flyway.configure()
        .dataSource(schema.dataSource())
        .schemas(schema.name())
        .locations("classpath:META-INF/fencing/postgres/migrations");
  }

  @Test
  void aFreshSchemaMigratedByFlywayRunsTheLibraryWithoutInstall(TestSchema schema)
      throws Exception {
    MigrateResult result = flyway(schema).load().migrate();

    assertThat(result.migrationsExecuted).isEqualTo(EVERY_VERSION.size());
    assertThat(scalar(schema, "select to_regclass('%s.flyway_schema_history')::text")).isNotNull();
    assertThat(result.targetSchemaVersion)
        .isEqualTo(String.valueOf(PostgresFencing.schemaVersion()));
    assertThat(versions(schema)).containsExactlyElementsOf(EVERY_VERSION);
    assertThat(recordedEngine(schema)).isEqualTo("append_only");

    PostgresFencing fencing =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(false).build();
    assertThat(fencing.schemaStatus().runnable()).isTrue();
    assertThat(fencing.schemaStatus().version()).isEqualTo(PostgresFencing.schemaVersion());
    long id = fencing.queue().enqueue("q", "{\"n\": 1}");
    assertThat(fencing.queue().claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);
    assertThat(fencing.engine()).isEqualTo(Engine.APPEND_ONLY);

    // the library's installer finds the version Flyway's run recorded, and applies nothing
    String installedAt =
        scalar(
            schema,
            "select string_agg(installed_at::text, ' ' order by version) from %s.fencing_schema_version");
    PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(true).build();
    assertThat(versions(schema)).containsExactlyElementsOf(EVERY_VERSION);
    assertThat(
            scalar(
                schema,
                "select string_agg(installed_at::text, ' ' order by version) from %s.fencing_schema_version"))
        .isEqualTo(installedAt);

    // and Flyway finds nothing to do either
    assertThat(flyway(schema).load().migrate().migrationsExecuted).isZero();
    assertThat(applied(schema)).containsExactlyElementsOf(scripts());
  }

  @Test
  void aSchemaTheLibraryMigratedIsTakenOverByABaselineAtItsVersion(TestSchema schema)
      throws Exception {
    PostgresFencing installed =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    long id = installed.queue().enqueue("q", "{}");
    String version = scalar(schema, "select max(version)::text from %s.fencing_schema_version");
    assertThatThrownBy(() -> flyway(schema).load().migrate())
        .isInstanceOf(FlywayException.class)
        .hasMessageContaining("non-empty schema");

    MigrateResult result =
        flyway(schema).baselineOnMigrate(true).baselineVersion(version).load().migrate();

    assertThat(version).isEqualTo(String.valueOf(PostgresFencing.schemaVersion()));
    assertThat(result.migrationsExecuted).as("no script is run again").isZero();
    assertThat(applied(schema)).containsExactly(version + " BASELINE << Flyway Baseline >>");
    assertThat(flyway(schema).load().migrate().migrationsExecuted).isZero();
    assertThat(versions(schema)).containsExactlyElementsOf(EVERY_VERSION);
    PostgresFencing fencing =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(false).build();
    assertThat(fencing.queue().claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);
  }

  @Test
  void aSchemaFromBeforeVersionsIsBaselinedAtZeroSoThatFlywayRunsEveryScript(TestSchema schema)
      throws Exception {
    PostgresFencing old =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    long id = old.queue().enqueue("q", "{\"n\": 1}");
    // as a build from before versions left it
    execute(schema, "drop table %s.fencing_schema_version");
    PostgresFencing waiting =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(false).build();
    assertThat(waiting.schemaStatus().version()).isZero();
    assertThat(waiting.schemaStatus().runnable()).isFalse();

    MigrateResult result =
        flyway(schema).baselineOnMigrate(true).baselineVersion("0").load().migrate();

    assertThat(result.migrationsExecuted).isEqualTo(EVERY_VERSION.size());
    List<String> history = new ArrayList<>(List.of("0 BASELINE << Flyway Baseline >>"));
    history.addAll(scripts());
    assertThat(applied(schema)).containsExactlyElementsOf(history);
    assertThat(versions(schema)).containsExactlyElementsOf(EVERY_VERSION);
    assertThat(recordedEngine(schema)).isEqualTo("append_only");
    // the handle built before the migration runs now, on the job enqueued before it
    assertThat(waiting.schemaStatus().runnable()).isTrue();
    assertThat(waiting.queue().claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);
  }

  @ParameterizedTest
  @ValueSource(strings = {"callback", "initSql"})
  void theOtherEngineIsPickedBySettingItForFlywaysConnection(String how, TestSchema schema)
      throws Exception {
    MigrateResult result = pickingTheEngine(schema, how, "SET").load().migrate();

    assertThat(result.migrationsExecuted).isEqualTo(EVERY_VERSION.size());
    assertThat(recordedEngine(schema)).isEqualTo("update_in_place");
    assertThat(versions(schema)).containsExactlyElementsOf(EVERY_VERSION);
    PostgresFencing fencing =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .engine(Engine.UPDATE_IN_PLACE)
            .install(false)
            .build();
    long id = fencing.queue().enqueue("q", "{}");
    assertThat(fencing.queue().claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);
    assertThat(scalar(schema, "select count(*)::text from %s.fencing_job")).isEqualTo("1");
    assertThat(
            PostgresFencing.builder(schema.dataSource())
                .schema(schema.name())
                .install(false)
                .build()
                .engine())
        .isEqualTo(Engine.UPDATE_IN_PLACE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"callback", "initSql"})
  void setLocalForFlywaysConnectionPicksNothing(String how, TestSchema schema) throws Exception {
    // Flyway runs both outside the migration's transaction: what SET LOCAL sets ends before it
    assertThat(pickingTheEngine(schema, how, "SET LOCAL").load().migrate().migrationsExecuted)
        .isEqualTo(EVERY_VERSION.size());

    assertThat(recordedEngine(schema)).isEqualTo("append_only");
  }

  /**
   * {@link #flyway} with {@code set} ({@code SET} or {@code SET LOCAL}) {@code fencing.engine =
   * 'update_in_place'} run on each connection Flyway opens, by an {@code afterConnect.sql} callback
   * (src/test/resources/fencing-flyway) or by {@code initSql}.
   */
  private static FluentConfiguration pickingTheEngine(TestSchema schema, String how, String set)
      throws URISyntaxException {
    FluentConfiguration flyway = flyway(schema);
    if (how.equals("callback")) {
      String dir = "/fencing-flyway/" + (set.equals("SET") ? "session" : "local");
      // a filesystem: location, for the test only: surefire puts target/test-classes both into
      // this module and on the class path, so a classpath: one would find the callback twice
      Path callbacks =
          Path.of(FlywayMigrationTest.class.getResource(dir + "/afterConnect.sql").toURI())
              .getParent();
      return flyway.locations(
          "classpath:META-INF/fencing/postgres/migrations", "filesystem:" + callbacks);
    }
    return flyway.initSql(set + " fencing.engine = 'update_in_place'");
  }

  /** Flyway's history rows of the scripts this jar ships, each run by Flyway, in order. */
  private static List<String> scripts() {
    return PostgresFencing.migrations().stream()
        .map(m -> m.version() + " SQL " + m.description())
        .toList();
  }

  /** Flyway's history: version, type and description of each row, in order. */
  private static List<String> applied(TestSchema schema) {
    List<String> rows = new ArrayList<>();
    for (MigrationInfo info : flyway(schema).load().info().applied()) {
      rows.add(info.getVersion() + " " + info.getType() + " " + info.getDescription());
    }
    return rows;
  }

  private static String recordedEngine(TestSchema schema) throws SQLException {
    return scalar(schema, "select engine from %s.fencing_schema");
  }
}
