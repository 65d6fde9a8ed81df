package dev.fencing.receiver;

import dev.fencing.FencedReceiver;
import dev.fencing.receiver.internal.ReceiverFactory;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The module's front door: receivers that keep the newest epoch per key, accept a newer or equal
 * epoch and refuse an older one.
 *
 * <pre>{@code
 * FencedReceiver receiver = Receivers.postgres(dataSource).schema("billing").name("ledger").build();
 * FencedOutcome outcome = receiver.deliver("acc-1", lease.epoch(), "{\"debit\": 100}");
 * }</pre>
 */
public final class Receivers {

  private Receivers() {}

  /**
   * Returns a new, empty, thread-safe receiver that keeps its receipts in this JVM's memory. It
   * keeps payloads exactly as given; a payload that is not exactly one JSON value raises {@link
   * IllegalArgumentException} naming {@code payload}.
   */
  public static FencedReceiver inMemory() {
    return ReceiverFactory.inMemory();
  }

  /**
   * Starts a receiver that keeps its receipts in PostgreSQL, safe for many processes at once.
   *
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static PostgresReceiverBuilder postgres(DataSource dataSource) {
    return new PostgresReceiverBuilder(Objects.requireNonNull(dataSource, "dataSource"));
  }
}
