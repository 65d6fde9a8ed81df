package dev.fencing.postgres;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.testkit.db.PostgresFixture;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.sql.DataSource;

/**
 * A relay in a JVM of its own, for {@link RelayKilledBetweenSendAndRecordTest}: relays one
 * destination to the PostgreSQL receiver; after each delivery, before the relay records it, prints
 * {@code SENT <idempotency key> <outcome>} and waits for a line on standard input. Arguments: JDBC
 * URL, user, password, schema, destination, and {@code keyed} to send to {@link KeyedService}
 * instead.
 */
public final class RelayProcess {

  private RelayProcess() {}

  public static void main(String[] args) throws IOException {
    DataSource ds = new PostgresFixture.Database(args[0], args[1], args[2], "url").dataSource();
    String schema = args[3];
    FencedOutbox outbox =
        PostgresFencing.builder(ds).schema(schema).install(false).build().outbox();
    FencedReceiver receiver =
        PostgresFencing.builder(ds).schema(schema).install(false).build().receiver("default");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    System.out.println("READY");
    boolean keyed = args.length > 5 && args[5].equals("keyed");
    List<FencedOutbox.Relayed> sent =
        outbox.relay(
            args[4],
            envelope -> {
              FencedOutcome outcome =
                  keyed
                      ? KeyedService.call(ds, schema, envelope)
                      : receiver.deliver(envelope.key(), envelope.epoch(), envelope.payload());
              System.out.println("SENT " + envelope.idempotencyKey() + " " + outcome);
              try {
                in.readLine();
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
              return outcome;
            },
            100);
    System.out.println("DONE " + sent.size());
  }
}
