package dev.fencing.demo;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import javax.sql.DataSource;

/**
 * The PostgreSQL queue on the update-in-place engine (one row of {@code fencing_job} per job), with
 * the same receiver: {@link PostgresBackend} runs on the default engine, which is the append-only
 * one. The receiver names the engine too, so that whichever of the two installs a fresh schema
 * first records this one.
 */
public class UpdateInPlacePostgresBackend extends PostgresBackend {

  @Override
  public FencedQueue queue(DataSource dataSource, String schema) {
    return fencing(dataSource, schema).queue();
  }

  @Override
  public FencedReceiver receiver(DataSource dataSource, String schema) {
    return fencing(dataSource, schema).receiver("default");
  }

  private static PostgresFencing fencing(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource)
        .schema(schema)
        .engine(PostgresFencing.Engine.UPDATE_IN_PLACE)
        .build();
  }
}
