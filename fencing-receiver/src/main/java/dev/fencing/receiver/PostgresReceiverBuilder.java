package dev.fencing.receiver;

import dev.fencing.FencedReceiver;
import dev.fencing.internal.Validate;
import dev.fencing.receiver.internal.ReceiverFactory;
import javax.sql.DataSource;

/**
 * Configures a PostgreSQL receiver; see {@link Receivers#postgres(DataSource)}. Not thread-safe;
 * the receiver it builds is immutable and thread-safe.
 *
 * <p>The receiver's payloads are stored as {@code jsonb}, so {@link FencedReceiver#newest} returns
 * them in PostgreSQL's normalised form (object keys sorted and deduplicated, whitespace changed). A
 * payload that {@code jsonb} refuses (a syntax error, an escaped NUL, a lone surrogate escape,
 * nesting too deep for the server) raises {@link IllegalArgumentException} naming {@code payload}
 * and the server's reason, at once and without retrying; nothing is written.
 */
public final class PostgresReceiverBuilder {

  private final DataSource dataSource;
  private String schema = "fencing";
  private String name = "default";
  private boolean install = true;

  PostgresReceiverBuilder(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Sets the schema that holds the receiver's table; {@code fencing} by default.
   *
   * @param schema a plain identifier ({@code [a-z_][a-z0-9_]{0,62}})
   * @throws IllegalArgumentException if it is not
   */
  public PostgresReceiverBuilder schema(String schema) {
    this.schema = Validate.identifier("schema", schema);
    return this;
  }

  /**
   * Sets this receiver's name; {@code default} by default. Receivers with different names share the
   * table but not their keys.
   *
   * @param name a plain identifier ({@code [a-z_][a-z0-9_]{0,62}})
   * @throws IllegalArgumentException if it is not
   */
  public PostgresReceiverBuilder name(String name) {
    this.name = Validate.identifier("name", name);
    return this;
  }

  /**
   * Sets whether {@link #build()} creates the schema and table if they are missing; true by
   * default. Installing is idempotent and safe when several processes install at once.
   */
  public PostgresReceiverBuilder install(boolean install) {
    this.install = install;
    return this;
  }

  /**
   * Builds the receiver, installing its table first if so configured.
   *
   * @throws ReceiverException if the installation failed
   */
  public FencedReceiver build() {
    return ReceiverFactory.postgres(dataSource, schema, name, install);
  }
}
