package dev.fencing.postgres;

import static dev.fencing.postgres.SchemaRows.EVERY_VERSION;
import static dev.fencing.postgres.SchemaRows.rows;
import static dev.fencing.postgres.SchemaRows.scalar;
import static dev.fencing.postgres.SchemaRows.versions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.postgres.PostgresFencing.Engine;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import liquibase.Liquibase;
import liquibase.Scope;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.junit.jupiter.api.Test;

/**
 * The migration scripts run by Liquibase with the changelog of docs/UPGRADING.md ("Running the
 * scripts yourself", here src/test/resources/fencing-liquibase/changelog.yaml): it creates the
 * schema, runs each script whole in one transaction with {@code search_path} set to the schema, and
 * a handle with {@code install(false)} then runs on it.
 */
@FencingDatabase
class LiquibaseMigrationTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  private static final String CHANGELOG = "fencing-liquibase/changelog.yaml";

  @Test
  void aSchemaUpdatedByLiquibaseRunsTheLibraryWithoutInstall(TestSchema schema, TestSchema own)
      throws Exception {
    // the changelog creates the schema
    schema.database().dropSchema(schema.name());

    update(schema, own);

    assertThat(versions(schema)).containsExactlyElementsOf(EVERY_VERSION);
    assertThat(scalar(schema, "select engine from %s.fencing_schema")).isEqualTo("append_only");
    // Liquibase's own tables stay where its connection's search_path had them, and the scripts'
    // tables went where the changelog's SET LOCAL search_path put them
    assertThat(changeSets(own)).containsExactlyElementsOf(changeSetPerScript());
    assertThat(scalar(own, "select to_regclass('%s.fencing_append_job')::text")).isNull();

    PostgresFencing fencing =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(false).build();
    assertThat(fencing.schemaStatus().runnable()).isTrue();
    assertThat(fencing.schemaStatus().version()).isEqualTo(PostgresFencing.schemaVersion());
    long id = fencing.queue().enqueue("q", "{\"n\": 1}");
    assertThat(fencing.queue().claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);
    assertThat(fencing.engine()).isEqualTo(Engine.APPEND_ONLY);

    // neither the library's installer nor a second update applies anything
    String installedAt =
        scalar(
            schema,
            "select string_agg(installed_at::text, ' ' order by version) from %s.fencing_schema_version");
    PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(true).build();
    update(schema, own);
    assertThat(changeSets(own)).containsExactlyElementsOf(changeSetPerScript());
    assertThat(versions(schema)).containsExactlyElementsOf(EVERY_VERSION);
    assertThat(
            scalar(
                schema,
                "select string_agg(installed_at::text, ' ' order by version) from %s.fencing_schema_version"))
        .isEqualTo(installedAt);
  }

  /**
   * Runs the changelog's update for {@code schema} on a connection whose search_path is {@code
   * own}, where Liquibase keeps its tables (public in a deployment; a schema of the test's own
   * here, so that tests do not share them).
   */
  private static void update(TestSchema schema, TestSchema own) throws Exception {
    Properties properties = new Properties();
    if (!own.database().user().isEmpty()) {
      properties.setProperty("user", own.database().user());
    }
    if (!own.database().password().isEmpty()) {
      properties.setProperty("password", own.database().password());
    }
    properties.setProperty("currentSchema", own.name());
    try (Connection c = DriverManager.getConnection(own.database().jdbcUrl(), properties)) {
      Database database =
          DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
      Scope.child(
          Map.of(
              // no usage data sent to Liquibase from a test
              "liquibase.analytics.enabled", false),
          () -> {
            Liquibase liquibase =
                new Liquibase(
                    CHANGELOG,
                    new ClassLoaderResourceAccessor(LiquibaseMigrationTest.class.getClassLoader()),
                    database);
            liquibase.setChangeLogParameter("fencing.schema", schema.name());
            liquibase.update();
          });
    }
  }

  /** One executed change set per script this jar ships. */
  private static List<String> changeSetPerScript() {
    return PostgresFencing.migrations().stream()
        .map(m -> "fencing-V" + m.version() + " fencing EXECUTED")
        .toList();
  }

  private static List<String> changeSets(TestSchema own) throws SQLException {
    return rows(
        own, "select id || ' ' || author || ' ' || exectype from %s.databasechangelog order by id");
  }
}
