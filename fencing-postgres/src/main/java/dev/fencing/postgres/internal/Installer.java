package dev.fencing.postgres.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jooq.DSLContext;

/** Installs the schema SQL resource into the configured schema, idempotently. */
public final class Installer {

  /** Serialises installs across processes: CREATE ... IF NOT EXISTS is not safe when concurrent. */
  private static final long LOCK_KEY = 0x66656e63696e67L;

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

  static void install(DSLContext dsl, String schema) {
    String sql = schemaSql().replaceAll("--[^\n]*", "");
    dsl.transaction(
        tx -> {
          DSLContext t = tx.dsl();
          t.execute("select pg_advisory_xact_lock(" + LOCK_KEY + ")");
          // schema passed Validate.identifier: [a-z_][a-z0-9_]*, so quoting it is complete
          t.execute("create schema if not exists \"" + schema + "\"");
          t.execute("set local search_path to \"" + schema + "\"");
          for (String statement : sql.split(";")) {
            if (!statement.isBlank()) {
              t.execute(statement);
            }
          }
        });
  }
}
