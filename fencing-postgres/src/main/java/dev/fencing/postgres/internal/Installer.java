package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_SCHEMA;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_SCHEMA_VERSION;

import dev.fencing.SchemaVersionException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.Record2;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a schema to the version this jar ships by running the migration scripts it lacks, and says
 * whether a library of this jar may run on a schema.
 *
 * <p>The scripts lie in the jar under {@link #LOCATION}, named as Flyway names them ({@code
 * V1__fencing_schema.sql}); each records its own version in {@code fencing_schema_version} as its
 * last statement, so a schema migrated by Flyway, Liquibase or by hand says what it holds as one
 * migrated here does. Each runs whole, in one transaction of its own, under an advisory lock that
 * serialises installers across processes, after the version was read again under that lock: two
 * processes that start at once apply each script once, and a script that fails (or whose connection
 * is killed) half-way leaves the schema at the version before it.
 */
public final class Installer {

  private static final Logger LOG = LoggerFactory.getLogger(Installer.class);

  /** Serialises installs across processes: CREATE ... IF NOT EXISTS is not safe when concurrent. */
  private static final long LOCK_KEY = 0x66656e63696e67L;

  /** Where the scripts lie in the jar (outside any Java package, so any module may read them). */
  public static final String LOCATION = "META-INF/fencing/postgres/migrations";

  /**
   * The scripts, in version order: a jar's directories cannot be listed portably, so they are named
   * here ({@code InstallerTest} checks the list against the directory).
   */
  static final List<String> SCRIPTS =
      List.of("V1__fencing_schema.sql", "V2__queue_controls.sql", "V3__refusals.sql");

  private static final Pattern NAME = Pattern.compile("V([1-9][0-9]*)__([a-z0-9_]+)\\.sql");

  private static final List<Migration> MIGRATIONS = load();

  private Installer() {}

  /**
   * One migration script.
   *
   * @param version its version: the scripts are numbered 1, 2, ... without gaps
   * @param description what its name says, underscores as spaces
   * @param resource where it lies in the jar
   * @param sql its text, as it lies there
   */
  public record Migration(int version, String description, String resource, String sql) {}

  /**
   * What a schema records of itself.
   *
   * @param version its newest version, 0 when it records none
   * @param compatibleFrom the oldest schema version whose library may run on it (that version's
   *     {@code compatible_from}), 0 when it records none
   * @param tables whether it holds any fencing table
   * @param engine the engine it records; see {@link #recordedEngine}
   */
  public record State(
      int version, int compatibleFrom, boolean tables, Optional<EngineKind> engine) {}

  /** Returns the scripts this jar ships, in version order. */
  public static List<Migration> migrations() {
    return MIGRATIONS;
  }

  /** Returns the version of the schema this jar needs: its newest script's. */
  public static int latest() {
    return MIGRATIONS.getLast().version();
  }

  /** Returns every script this jar ships, in version order, as one text. */
  public static String schemaSql() {
    return MIGRATIONS.stream().map(Migration::sql).collect(Collectors.joining("\n"));
  }

  /** Orders script names by their version number (so V10 after V9). */
  static int byVersion(String a, String b) {
    return Integer.compare(number(a), number(b));
  }

  private static int number(String script) {
    Matcher name = NAME.matcher(script);
    if (!name.matches()) {
      throw new IllegalStateException("migration script " + script + " is not named V<n>__<a_z>");
    }
    return Integer.parseInt(name.group(1));
  }

  private static List<Migration> load() {
    List<Migration> migrations = new ArrayList<>();
    for (String script : SCRIPTS) {
      Matcher name = NAME.matcher(script);
      if (!name.matches()) {
        throw new IllegalStateException("migration script " + script + " is not named V<n>__<a_z>");
      }
      int version = Integer.parseInt(name.group(1));
      if (version != migrations.size() + 1) {
        throw new IllegalStateException(
            "migration script " + script + " should be version " + (migrations.size() + 1));
      }
      String resource = LOCATION + "/" + script;
      try (InputStream in = Installer.class.getClassLoader().getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("missing resource " + resource);
        }
        migrations.add(
            new Migration(
                version,
                name.group(2).replace('_', ' '),
                resource,
                new String(in.readAllBytes(), StandardCharsets.UTF_8)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return List.copyOf(migrations);
  }

  /**
   * Applies the scripts {@code schema} lacks, one transaction each, and returns how many it
   * applied. A schema that records no engine gets one from its first script: the engine whose
   * tables alone hold jobs (a schema installed before engines were recorded), else {@code
   * requested}, else {@link EngineKind#DEFAULT}. A schema newer than this jar is left as it is
   * (whether this library may run on it is {@link #refusal}'s answer).
   */
  static int install(DSLContext dsl, String schema, @Nullable EngineKind requested) {
    int applied = 0;
    while (applyNext(dsl, schema, requested)) {
      applied++;
    }
    return applied;
  }

  private static boolean applyNext(DSLContext dsl, String schema, @Nullable EngineKind requested) {
    return dsl.transactionResult(
        tx -> {
          DSLContext t = tx.dsl();
          t.execute("select pg_advisory_xact_lock(" + LOCK_KEY + ")");
          // schema passed Validate.identifier: [a-z_][a-z0-9_]*, so quoting it is complete
          t.execute("create schema if not exists \"" + schema + "\"");
          t.execute("set local search_path to \"" + schema + "\"");
          int at = state(t, schema).version();
          if (at >= latest()) {
            return false;
          }
          Migration next = MIGRATIONS.get(at);
          long started = System.nanoTime();
          t.connection(
              c -> {
                try (PreparedStatement engine =
                    c.prepareStatement("select set_config('fencing.engine', ?, true)")) {
                  engine.setString(1, requested == null ? "" : requested.stored());
                  engine.execute();
                }
                // the script whole: the driver sends its statements in one round trip, and its
                // parser, not ours, finds where each ends (dollar quotes, comments)
                try (Statement script = c.createStatement()) {
                  script.execute(next.sql());
                }
              });
          if (!t.fetchExists(
              FENCING_SCHEMA_VERSION, FENCING_SCHEMA_VERSION.VERSION.eq(next.version()))) {
            throw new IllegalStateException(
                next.resource() + " did not record its version in fencing_schema_version");
          }
          LOG.info(
              "schema {}: applied migration {} ({}) in {} ms",
              schema,
              next.version(),
              next.description(),
              (System.nanoTime() - started) / 1_000_000);
          return true;
        });
  }

  /** Reads what {@code schema} records of itself, on one connection; see {@link State}. */
  static State state(DSLContext dsl, String schema) {
    return dsl.connectionResult(c -> readState(DSL.using(dsl.configuration().derive(c)), schema));
  }

  private static State readState(DSLContext dsl, String schema) {
    Optional<EngineKind> engine = recordedEngine(dsl, schema);
    if (!exists(dsl, schema, "fencing_schema_version")) {
      boolean tables =
          exists(dsl, schema, "fencing_job")
              || exists(dsl, schema, "fencing_append_job")
              || exists(dsl, schema, "fencing_schema");
      return new State(0, 0, tables, engine);
    }
    Record2<Integer, Integer> newest =
        dsl.select(FENCING_SCHEMA_VERSION.VERSION, FENCING_SCHEMA_VERSION.COMPATIBLE_FROM)
            .from(FENCING_SCHEMA_VERSION)
            .orderBy(FENCING_SCHEMA_VERSION.VERSION.desc())
            .limit(1)
            .fetchOne();
    return newest == null
        ? new State(0, 0, true, engine)
        : new State(newest.value1(), newest.value2(), true, engine);
  }

  /**
   * Returns why a library of this jar may not run on a schema in {@code state}, or null when it
   * may: a schema with no fencing tables is not refused here (its first statement says it is not
   * installed); one older than {@link #latest()} is, and so is a newer one whose newest version is
   * no longer compatible with this jar's.
   */
  public static @Nullable SchemaVersionException refusal(String schema, State state) {
    int expected = latest();
    if (!state.tables()) {
      return null;
    }
    if (state.version() == 0) {
      return new SchemaVersionException(
          schema,
          0,
          expected,
          "schema "
              + schema
              + " holds fencing tables but records no version (table "
              + schema
              + ".fencing_schema_version): a build from before schema versions installed it,"
              + " and this library needs version "
              + expected
              + ". "
              + migrate(schema, 0, expected));
    }
    String at = "schema " + schema + " is at version " + state.version();
    if (state.version() < expected) {
      return new SchemaVersionException(
          schema,
          state.version(),
          expected,
          at
              + ", and this library needs version "
              + expected
              + ". "
              + migrate(schema, state.version(), expected));
    }
    if (state.compatibleFrom() > expected) {
      return new SchemaVersionException(
          schema,
          state.version(),
          expected,
          at
              + ", on which no library older than schema version "
              + state.compatibleFrom()
              + " may run (its compatible_from), and this library knows versions up to "
              + expected
              + ": upgrade the library (docs/UPGRADING.md)");
    }
    return null;
  }

  private static String migrate(String schema, int from, int to) {
    return "Build one handle with install(true) (the default), which applies "
        + (from + 1 == to ? "version " + to : "versions " + (from + 1) + " to " + to)
        + " while workers run, each in one transaction; or run the scripts yourself"
        + " (PostgresFencing.migrations(), in the jar under "
        + LOCATION
        + ", with search_path set to "
        + schema
        + "; README, \"Upgrading\")";
  }

  /**
   * Returns the engine {@code schema} records; when it records none (not installed, installed
   * before engines were recorded, or by running the scripts by hand in a way that skipped the
   * record), the engine whose table alone holds jobs, as the first script would record it, else
   * empty.
   *
   * @throws IllegalStateException naming the engine recorded if this library does not know it
   */
  static Optional<EngineKind> recordedEngine(DSLContext dsl, String schema) {
    String recorded =
        exists(dsl, schema, "fencing_schema")
            ? dsl.select(FENCING_SCHEMA.ENGINE).from(FENCING_SCHEMA).fetchOne(FENCING_SCHEMA.ENGINE)
            : null;
    // without a record, a handle that does not install would otherwise take the default and claim
    // from tables no producer of the schema fills
    return recorded != null
        ? Optional.of(EngineKind.ofStored(recorded))
        : holdingJobs(
            holdsRows(dsl, schema, "fencing_job"), holdsRows(dsl, schema, "fencing_append_job"));
  }

  /** The engine whose job table alone holds rows; empty when neither or both do. */
  private static Optional<EngineKind> holdingJobs(boolean updateJobs, boolean appendJobs) {
    if (updateJobs == appendJobs) {
      return Optional.empty();
    }
    return Optional.of(updateJobs ? EngineKind.UPDATE_IN_PLACE : EngineKind.APPEND_ONLY);
  }

  private static boolean exists(DSLContext dsl, String schema, String table) {
    // schema passed Validate.identifier and table is one of ours; to_regclass takes them bound
    return dsl.fetchValue(
            DSL.field("to_regclass({0})", Object.class, DSL.val("\"" + schema + "\"." + table)))
        != null;
  }

  private static boolean holdsRows(DSLContext dsl, String schema, String table) {
    if (!exists(dsl, schema, table)) {
      return false;
    }
    // schema passed Validate.identifier and table is one of ours, so quoting them is complete
    String name = "\"" + schema + "\"." + table;
    return Boolean.TRUE.equals(
        dsl.fetchValue(DSL.field("exists (select 1 from " + name + ")", SQLDataType.BOOLEAN)));
  }
}
