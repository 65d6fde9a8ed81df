package dev.fencing.receiver.internal;

import dev.fencing.FencedReceiver;
import javax.sql.DataSource;

/** Builds the receivers for {@code dev.fencing.receiver.Receivers}; not part of the API. */
public final class ReceiverFactory {

  private ReceiverFactory() {}

  /** Returns a new, empty in-memory receiver. */
  public static FencedReceiver inMemory() {
    return new InMemoryReceiver();
  }

  /**
   * Returns a PostgreSQL receiver, installing its table first if {@code install}.
   *
   * @param schema a validated plain identifier
   * @param name a validated plain identifier
   */
  public static FencedReceiver postgres(
      DataSource dataSource, String schema, String name, boolean install) {
    Database database = new Database(dataSource, "receiver '" + name + "' in schema " + schema);
    if (install) {
      Installer.install(database, schema);
    }
    return new PostgresReceiver(database, schema, name);
  }
}
