package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_SCHEMA;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/** Installs the schema SQL resource into the configured schema, idempotently. */
public final class Installer {

  /** Serialises installs across processes: CREATE ... IF NOT EXISTS is not safe when concurrent. */
  private static final long LOCK_KEY = 0x66656e63696e67L;

  /** The tag that opens and closes a dollar-quoted body. */
  private static final Pattern DOLLAR_TAG = Pattern.compile("\\$[a-z_]*\\$");

  /** Today's engine and what every engine shares, then the append-only engine's tables. */
  private static final List<String> RESOURCES =
      List.of("/dev/fencing/postgres/schema.sql", "/dev/fencing/postgres/schema-append.sql");

  private Installer() {}

  /** Returns the text of the schema SQL that ships in this jar. */
  public static String schemaSql() {
    StringBuilder sql = new StringBuilder();
    for (String resource : RESOURCES) {
      try (InputStream in = Installer.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("missing resource " + resource);
        }
        sql.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return sql.toString();
  }

  /**
   * Creates what is missing and, when the schema records no engine yet, records one: the engine
   * whose tables hold jobs when only one engine's do (a schema installed before engines were
   * recorded), else {@code requested}, else {@link #APPEND_ONLY}.
   */
  static void install(DSLContext dsl, String schema, @Nullable String requested) {
    String sql = schemaSql().replaceAll("--[^\n]*", "");
    dsl.transaction(
        tx -> {
          DSLContext t = tx.dsl();
          t.execute("select pg_advisory_xact_lock(" + LOCK_KEY + ")");
          // schema passed Validate.identifier: [a-z_][a-z0-9_]*, so quoting it is complete
          t.execute("create schema if not exists \"" + schema + "\"");
          t.execute("set local search_path to \"" + schema + "\"");
          for (String statement : statements(sql)) {
            t.execute(statement);
          }
          record(t, requested);
        });
  }

  /**
   * The statements of {@code sql} (comments removed): split at each semicolon outside a
   * dollar-quoted body ({@code $tag$ ... $tag$}, as a function's), blank ones left out.
   */
  static List<String> statements(String sql) {
    List<String> statements = new ArrayList<>();
    Matcher tag = DOLLAR_TAG.matcher(sql);
    StringBuilder current = new StringBuilder();
    int at = 0;
    while (at < sql.length()) {
      int semicolon = sql.indexOf(';', at);
      boolean quoted = tag.find(at) && (semicolon < 0 || tag.start() < semicolon);
      if (quoted) {
        int end = sql.indexOf(tag.group(), tag.end());
        if (end < 0) {
          throw new IllegalStateException("unterminated " + tag.group() + " in the schema SQL");
        }
        current.append(sql, at, end + tag.group().length());
        at = end + tag.group().length();
      } else if (semicolon >= 0) {
        current.append(sql, at, semicolon);
        add(statements, current);
        at = semicolon + 1;
      } else {
        current.append(sql, at, sql.length());
        at = sql.length();
      }
    }
    add(statements, current);
    return statements;
  }

  private static void add(List<String> statements, StringBuilder current) {
    if (!current.toString().isBlank()) {
      statements.add(current.toString());
    }
    current.setLength(0);
  }

  /** The stored name of {@code PostgresFencing.Engine.UPDATE_IN_PLACE}. */
  public static final String UPDATE_IN_PLACE = "update_in_place";

  /** The stored name of {@code PostgresFencing.Engine.APPEND_ONLY}. */
  public static final String APPEND_ONLY = "append_only";

  /** Inside the install's transaction, under its lock, search_path set to the schema. */
  private static void record(DSLContext t, @Nullable String requested) {
    if (t.fetchExists(FENCING_SCHEMA)) {
      return;
    }
    String engine =
        holdingJobs(t.fetchExists(FENCING_JOB), t.fetchExists(FENCING_APPEND_JOB))
            .orElse(requested != null ? requested : APPEND_ONLY);
    t.insertInto(FENCING_SCHEMA, FENCING_SCHEMA.ENGINE).values(engine).execute();
  }

  /**
   * Returns the engine {@code schema} records; when it records none (not installed, installed
   * before engines were recorded, or by running {@link #schemaSql()} by hand), the engine whose
   * table alone holds jobs, as {@link #record} would record it, else empty.
   */
  static Optional<String> recordedEngine(DSLContext dsl, String schema) {
    // schema passed Validate.identifier, and to_regclass takes it as a bound value
    Object table =
        dsl.fetchValue(
            DSL.field(
                "to_regclass({0})", Object.class, DSL.val("\"" + schema + "\".fencing_schema")));
    String recorded =
        table == null
            ? null
            : dsl.select(FENCING_SCHEMA.ENGINE)
                .from(FENCING_SCHEMA)
                .fetchOne(FENCING_SCHEMA.ENGINE);
    // without a record, a handle that does not install would otherwise take the default and claim
    // from tables no producer of the schema fills
    return recorded != null
        ? Optional.of(recorded)
        : holdingJobs(
            holdsRows(dsl, schema, "fencing_job"), holdsRows(dsl, schema, "fencing_append_job"));
  }

  /** The engine whose job table alone holds rows; empty when neither or both do. */
  private static Optional<String> holdingJobs(boolean updateJobs, boolean appendJobs) {
    if (updateJobs == appendJobs) {
      return Optional.empty();
    }
    return Optional.of(updateJobs ? UPDATE_IN_PLACE : APPEND_ONLY);
  }

  private static boolean holdsRows(DSLContext dsl, String schema, String table) {
    // schema passed Validate.identifier and table is one of ours, so quoting them is complete
    String name = "\"" + schema + "\"." + table;
    if (dsl.fetchValue(DSL.field("to_regclass({0})", Object.class, DSL.val(name))) == null) {
      return false;
    }
    return Boolean.TRUE.equals(
        dsl.fetchValue(DSL.field("exists (select 1 from " + name + ")", SQLDataType.BOOLEAN)));
  }
}
