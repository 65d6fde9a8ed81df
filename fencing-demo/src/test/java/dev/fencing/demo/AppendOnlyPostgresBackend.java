package dev.fencing.demo;

import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import javax.sql.DataSource;

/** The PostgreSQL queue on the append-only engine, with the same receiver. */
public class AppendOnlyPostgresBackend extends PostgresBackend {

  @Override
  public FencedQueue queue(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource)
        .schema(schema)
        .engine(PostgresFencing.Engine.APPEND_ONLY)
        .build()
        .queue();
  }
}
