package dev.fencing.console;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.process.FencingBackend;
import javax.sql.DataSource;

/** The PostgreSQL queue of a worker process, on whichever engine the schema was installed with. */
public class ConsoleBackend implements FencingBackend {

  @Override
  public FencedQueue queue(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource).schema(schema).build().queue();
  }

  @Override
  public FencedReceiver receiver(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource).schema(schema).build().receiver("console");
  }
}
