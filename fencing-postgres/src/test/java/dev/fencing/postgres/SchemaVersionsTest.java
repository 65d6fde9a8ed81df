package dev.fencing.postgres;

import static dev.fencing.postgres.SchemaRows.EVERY_VERSION;
import static dev.fencing.postgres.SchemaRows.execute;
import static dev.fencing.postgres.SchemaRows.scalar;
import static dev.fencing.postgres.SchemaRows.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.SchemaVersionException;
import dev.fencing.StoreUnavailableException;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The schema's versions: the installer applies the scripts a schema lacks, each whole in one
 * transaction, once across processes; a handle that does not install refuses a schema at a version
 * it may not run on, naming the version found and the one it needs; a script killed half-way leaves
 * the version before it, and a retry completes it.
 */
@FencingDatabase
class SchemaVersionsTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  private static final Pattern CREATED_TABLE =
      Pattern.compile("CREATE TABLE IF NOT EXISTS ([a-z_]+)");

  @Test
  void aFreshSchemaIsInstalledAtTheJarsVersionWhichItRecords(TestSchema schema) throws Exception {
    PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();

    assertThat(PostgresFencing.schemaVersion()).isEqualTo(EVERY_VERSION.size());
    assertThat(versions(schema)).containsExactlyElementsOf(EVERY_VERSION);
    List<SchemaMigration> migrations = PostgresFencing.migrations();
    assertThat(migrations)
        .extracting(m -> m.version() + " " + m.description() + " 1")
        .as("every script an expand step, recorded as it is named")
        .containsExactlyElementsOf(EVERY_VERSION);
    assertThat(migrations.getFirst().resource())
        .isEqualTo("META-INF/fencing/postgres/migrations/V1__fencing_schema.sql");
    for (SchemaMigration migration : migrations) {
      assertThat(migration.resource())
          .isEqualTo(
              "META-INF/fencing/postgres/migrations/V"
                  + migration.version()
                  + "__"
                  + migration.description().replace(' ', '_')
                  + ".sql");
      try (InputStream in = getClass().getClassLoader().getResourceAsStream(migration.resource())) {
        assertThat(in).as("the script in the jar, where Flyway looks for it").isNotNull();
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
            .isEqualTo(migration.sql());
      }
    }
    assertThat(PostgresFencing.schemaSql())
        .isEqualTo(String.join("\n", migrations.stream().map(SchemaMigration::sql).toList()));
  }

  @Test
  void aSchemaAtTheJarsVersionIsOnlyReadNotLockedByTheNextBuild(TestSchema schema)
      throws Exception {
    PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    String installedAt =
        scalar(
            schema,
            "select string_agg(installed_at::text, ' ' order by version) from %s.fencing_schema_version");
    // a worker that starts while another holds every lock a script could want on the tables
    // workers write: it runs no script, so it waits for none of them
    try (Connection holder = schema.dataSource().getConnection()) {
      holder.setAutoCommit(false);
      try (Statement s = holder.createStatement()) {
        for (String table :
            List.of(
                "fencing_job",
                "fencing_append_job",
                "fencing_append_claim",
                "fencing_append_requeue",
                "fencing_append_done",
                "fencing_outbox",
                "fencing_resource")) {
          s.execute("lock table " + schema.name() + "." + table + " in access exclusive mode");
        }
      }
      CompletableFuture<PostgresFencing> build =
          CompletableFuture.supplyAsync(
              () -> PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build());
      assertThat(build.get(30, TimeUnit.SECONDS)).isNotNull();
      holder.rollback();
    }
    assertThat(
            scalar(
                schema,
                "select string_agg(installed_at::text, ' ' order by version) from %s.fencing_schema_version"))
        .isEqualTo(installedAt);
  }

  @Test
  void manyProcessesInstallingAtOnceApplyEachScriptOnce(TestSchema schema) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<PostgresFencing>> builds = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        builds.add(
            pool.submit(
                () ->
                    PostgresFencing.builder(schema.pooledDataSource(2))
                        .schema(schema.name())
                        .build()));
      }
      for (Future<PostgresFencing> build : builds) {
        assertThat(build.get(60, TimeUnit.SECONDS).engine())
            .isEqualTo(PostgresFencing.Engine.APPEND_ONLY);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(versions(schema)).containsExactlyElementsOf(EVERY_VERSION);
  }

  @Test
  void aSchemaFromBeforeVersionsIsRefusedWithoutInstallAndBroughtToTheJarsVersionWithIt(
      TestSchema schema) throws Exception {
    PostgresFencing old =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    long id = old.queue().enqueue("q", "{\"n\": 1}");
    fromBeforeVersions(schema);

    PostgresFencing waiting =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(false).build();
    for (int call = 0; call < 2; call++) {
      assertThatThrownBy(() -> waiting.queue().claim("q", "w", LONG))
          .isInstanceOfSatisfying(
              SchemaVersionException.class,
              e -> {
                assertThat(e.schema()).isEqualTo(schema.name());
                assertThat(e.found()).isZero();
                assertThat(e.expected()).isEqualTo(PostgresFencing.schemaVersion());
              })
          .hasMessageContaining("records no version")
          .hasMessageContaining("needs version " + PostgresFencing.schemaVersion());
    }
    // every part of the handle, not only the queue
    assertThatThrownBy(() -> waiting.ownership().acquire("r", "w", LONG))
        .isInstanceOf(SchemaVersionException.class);
    assertThatThrownBy(() -> waiting.receiver("default").newest("k"))
        .isInstanceOf(SchemaVersionException.class);
    assertThatThrownBy(
            () ->
                waiting
                    .outbox()
                    .relay("mail", (dev.fencing.FencedOutbox.Sender) envelope -> null, 10))
        .isInstanceOf(SchemaVersionException.class);
    assertThatThrownBy(waiting::admin).isInstanceOf(SchemaVersionException.class);
    assertThat(pending(schema)).as("nothing written").isEqualTo(1);

    PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    assertThat(versions(schema)).containsExactlyElementsOf(EVERY_VERSION);
    // the handle that waited runs now that the schema is migrated: it reads the version again
    assertThat(waiting.queue().claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);
  }

  @Test
  void aNewerSchemaRunsAnOlderLibraryOnlyWhileItDeclaresItselfCompatible(TestSchema schema)
      throws Exception {
    PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    int mine = PostgresFencing.schemaVersion();
    // an expand step of a later release: older libraries may still run on it
    execute(
        schema,
        "insert into %s.fencing_schema_version (version, description, compatible_from)"
            + " values ("
            + (mine + 1)
            + ", 'a later expand step', "
            + mine
            + ")");
    PostgresFencing still =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    long id = still.queue().enqueue("q", "{}");
    assertThat(still.queue().claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);
    assertThat(versions(schema)).hasSize(mine + 1);

    // its contract step: libraries of this version may no longer run
    execute(
        schema,
        "insert into %s.fencing_schema_version (version, description, compatible_from)"
            + " values ("
            + (mine + 2)
            + ", 'a later contract step', "
            + (mine + 1)
            + ")");
    assertThatThrownBy(
            () -> PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build())
        .isInstanceOfSatisfying(
            SchemaVersionException.class,
            e -> {
              assertThat(e.found()).isEqualTo(mine + 2);
              assertThat(e.expected()).isEqualTo(mine);
            })
        .hasMessageContaining("is at version " + (mine + 2))
        .hasMessageContaining("upgrade the library");
    PostgresFencing lazy =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(false).build();
    assertThatThrownBy(() -> lazy.queue().enqueue("q", "{}"))
        .isInstanceOf(SchemaVersionException.class);
    assertThat(versions(schema)).hasSize(mine + 2);
  }

  @Test
  void aScriptKilledHalfWayLeavesTheVersionBeforeItAndARetryCompletesIt(TestSchema schema)
      throws Exception {
    PostgresFencing old =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    long id = old.queue().enqueue("q", "{}");
    fromBeforeVersions(schema);

    // the first script's last statements write fencing_schema: it stops there, every earlier one
    // run (fencing_schema_version created among them)
    killHalfWay(schema, "fencing_schema", "insert into fencing_schema %");

    // the script's statements before the kill (the version table among them) were undone
    assertThat(scalar(schema, "select to_regclass('%s.fencing_schema_version')::text")).isNull();
    assertThat(pending(schema)).isEqualTo(1);

    PostgresFencing retried =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    assertThat(versions(schema)).containsExactlyElementsOf(EVERY_VERSION);
    assertThat(retried.queue().claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);
  }

  @Test
  void theSecondScriptKilledHalfWayLeavesVersionOneAndARetryCompletesIt(TestSchema schema)
      throws Exception {
    PostgresFencing old =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    old.queue().enqueue("q", "{}");
    atVersionOne(schema);
    assertThat(versions(schema)).containsExactly("1 fencing schema 1");
    PostgresFencing waiting =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(false).build();
    assertThatThrownBy(() -> waiting.queue().enqueue("q", "{}"))
        .isInstanceOfSatisfying(
            SchemaVersionException.class,
            e -> {
              assertThat(e.found()).isEqualTo(1);
              assertThat(e.expected()).isEqualTo(PostgresFencing.schemaVersion());
            });
    // version 2's last statement records it: it stops there, its tables created before it
    killHalfWay(schema, "fencing_schema_version", "insert into fencing_schema_version %");

    assertThat(versions(schema)).containsExactly("1 fencing schema 1");
    assertThat(scalar(schema, "select to_regclass('%s.fencing_job_option')::text"))
        .as("the second script's tables, undone with it")
        .isNull();
    assertThat(pending(schema)).isEqualTo(1);

    PostgresFencing retried =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    assertThat(versions(schema)).containsExactlyElementsOf(EVERY_VERSION);
    assertThat(scalar(schema, "select to_regclass('%s.fencing_job_option')::text")).isNotNull();
    assertThat(retried.queue().claim("q", "w", LONG)).isPresent();
    // the handle that waited reads the version again: it runs now
    assertThat(waiting.queue().enqueue("q", "{}")).isPositive();
  }

  /**
   * Starts a migration of {@code schema} while {@code table} is held in SHARE mode, kills its
   * connection once it waits on the statement that matches {@code statement} ({@code ilike}), and
   * checks the migration failed.
   */
  private static void killHalfWay(TestSchema schema, String table, String statement)
      throws Exception {
    CompletableFuture<PostgresFencing> migration;
    try (Connection holder = schema.dataSource().getConnection()) {
      holder.setAutoCommit(false);
      try (Statement s = holder.createStatement()) {
        // SHARE, not ACCESS EXCLUSIVE, so that the installer's own read of the table before the
        // script does not stop first
        s.execute("lock table " + schema.name() + "." + table + " in share mode");
      }
      migration =
          CompletableFuture.supplyAsync(
              () ->
                  PostgresFencing.builder(schema.dataSource())
                      .schema(schema.name())
                      .transientRetries(0)
                      .build());
      int killed = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      // from a connection of its own: the holder's transaction would see one snapshot of the view
      try (Connection watcher = schema.dataSource().getConnection()) {
        while (killed == 0 && System.nanoTime() < deadline) {
          try (PreparedStatement kill =
              watcher.prepareStatement(
                  "select count(pg_terminate_backend(pid)) from pg_stat_activity"
                      + " where datname = current_database() and pid <> pg_backend_pid()"
                      + " and wait_event_type = 'Lock'"
                      // the script reaches the server as its statements: the view shows the one
                      // that waits
                      + " and query ilike ?")) {
            kill.setString(1, "%" + statement);
            try (ResultSet r = kill.executeQuery()) {
              r.next();
              killed = r.getInt(1);
            }
          }
          Thread.sleep(20);
        }
      }
      assertThat(killed).as("the migration's connection, waiting in its script").isEqualTo(1);
      holder.rollback();
    }
    assertThatThrownBy(() -> migration.get(30, TimeUnit.SECONDS))
        .hasCauseInstanceOf(StoreUnavailableException.class);
  }

  /**
   * Leaves {@code schema}, migrated by this jar, as a library of version 1 would: without the
   * tables the later scripts create and their version rows.
   */
  private static void atVersionOne(TestSchema schema) throws SQLException {
    for (SchemaMigration later : PostgresFencing.migrations().subList(1, EVERY_VERSION.size())) {
      Matcher table = CREATED_TABLE.matcher(later.sql());
      while (table.find()) {
        execute(schema, "drop table %s." + table.group(1));
      }
    }
    execute(schema, "delete from %s.fencing_schema_version where version > 1");
  }

  /** Leaves {@code schema} as a build from before schema versions installed it. */
  private static void fromBeforeVersions(TestSchema schema) throws SQLException {
    execute(schema, "drop table %s.fencing_schema_version");
  }

  private static long pending(TestSchema schema) throws SQLException {
    return Long.parseLong(scalar(schema, "select count(*)::text from %s.fencing_append_job"));
  }
}
