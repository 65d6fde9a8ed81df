package dev.fencing.demo;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.process.FencingBackend;
import javax.sql.DataSource;

/** The real thing: the PostgreSQL queue and the PostgreSQL receiver, as a user would build them. */
public class PostgresBackend implements FencingBackend {

  @Override
  public FencedQueue queue(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource).schema(schema).build().queue();
  }

  @Override
  public FencedReceiver receiver(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource).schema(schema).build().receiver("default");
  }
}
