package dev.fencing.receiver.internal;

import dev.fencing.receiver.ReceiverException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/** Creates the receiver's schema and table from {@value #RESOURCE}, idempotently. */
final class Installer {

  /** The table's DDL, the single source of the schema. */
  static final String RESOURCE = "/dev/fencing/receiver/receiver.sql";

  /** Serializes installers across processes: concurrent CREATE ... IF NOT EXISTS can collide. */
  private static final long LOCK = 0x66656e6365726376L; // "fencercv"

  private Installer() {}

  /**
   * Installs the table in {@code schema} in one transaction.
   *
   * @param schema a validated plain identifier
   * @throws ReceiverException if the database refused
   */
  static void install(Database database, String schema) {
    String ddl = ddl();
    try {
      database.transaction(
          connection -> {
            try (PreparedStatement lock =
                connection.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
              lock.setLong(1, LOCK);
              lock.execute();
            }
            try (Statement statement = connection.createStatement()) {
              statement.execute("CREATE SCHEMA IF NOT EXISTS \"" + schema + "\"");
              statement.execute("SET LOCAL search_path TO \"" + schema + "\"");
              statement.execute(ddl);
            }
            return null;
          });
    } catch (SQLException e) {
      throw database.failed("install its table", e);
    }
  }

  static String ddl() {
    try (InputStream in = Installer.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCE + " in fencing-receiver");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }
}
