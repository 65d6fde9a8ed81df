package dev.fencing.demo;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import javax.sql.DataSource;

/**
 * The PostgreSQL queue and receiver built with {@code install(false)}, as a worker deployed before
 * its schema's migration: it runs no script, and refuses a schema at a version it may not run on
 * until someone migrates it.
 */
public class NoInstallPostgresBackend extends PostgresBackend {

  @Override
  public FencedQueue queue(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource).schema(schema).install(false).build().queue();
  }

  @Override
  public FencedReceiver receiver(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource)
        .schema(schema)
        .install(false)
        .build()
        .receiver("default");
  }
}
