package dev.fencing.demo;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The PostgreSQL queue on the update-in-place engine (one row of {@code fencing_job} per job), with
 * the same receiver: {@link PostgresBackend} runs on the default engine, which is the append-only
 * one. The receiver names the engine too, so that whichever of the two installs a fresh schema
 * first records this one.
 */
public class UpdateInPlacePostgresBackend extends PostgresBackend {

  /**
   * The jobs of a queue whose leases are valid at {@code clock_timestamp()} on this engine:
   * running, and the lease of the row's epoch has not run out. Read from the job rows, not from the
   * limit's slots, so that a claim that skipped the slots is counted too.
   */
  private static final String UPDATE_IN_PLACE_VALID =
      "select count(*) from %1$s.fencing_job where queue = ? and status = 'running'"
          + " and lease_expires_at > clock_timestamp()";

  @Override
  public FencedQueue queue(DataSource dataSource, String schema) {
    return fencing(dataSource, schema).queue();
  }

  @Override
  public FencedReceiver receiver(DataSource dataSource, String schema) {
    return fencing(dataSource, schema).receiver("default");
  }

  @Override
  public long validLeases(Connection connection, String schema, String queue) throws SQLException {
    return count(connection, UPDATE_IN_PLACE_VALID, schema, queue);
  }

  private static PostgresFencing fencing(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource)
        .schema(schema)
        .engine(PostgresFencing.Engine.UPDATE_IN_PLACE)
        .build();
  }
}
