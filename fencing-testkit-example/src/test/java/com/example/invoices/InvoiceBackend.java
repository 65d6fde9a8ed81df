package com.example.invoices;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.process.FencingBackend;
import javax.sql.DataSource;

/**
 * How "another project" plugs into the test kit: its queue (fencing's PostgreSQL queue), its own
 * receiver, and its own handler.
 */
public final class InvoiceBackend implements FencingBackend {

  @Override
  public FencedQueue queue(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource).schema(schema).build().queue();
  }

  @Override
  public FencedReceiver receiver(DataSource dataSource, String schema) {
    return new InvoiceReceiver(dataSource, schema);
  }

  /** The handler under test: renders the invoice for a job. */
  @Override
  public String handle(Job job) {
    return "{\"invoice\": "
        + job.id()
        + ", \"lines\": "
        + job.payload()
        + ", \"currency\": \"EUR\"}";
  }
}
