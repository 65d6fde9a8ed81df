package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Epoch;
import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.OutboxMessage;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.process.JavaProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A relay in its own JVM delivers a message and is killed with {@code SIGKILL} before it records
 * the delivery. The next relay sends the message again, with the same job, epoch and idempotency
 * key; the epoch-keeping receiver takes it as a repeat, so an effect applied on fresh acceptances
 * only happens once per message.
 */
@FencingDatabase
class RelayKilledBetweenSendAndRecordTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void theResendIsARepeatAtTheReceiverAndTheOutcomeIsRecorded(TestSchema schema) {
    DataSource ds = schema.dataSource();
    FencedQueue queue = PostgresFencing.builder(ds).schema(schema.name()).build().queue();
    FencedOutbox outbox = PostgresFencing.builder(ds).schema(schema.name()).build().outbox();
    FencedReceiver receiver =
        PostgresFencing.builder(ds).schema(schema.name()).build().receiver("default");
    receiver.deliver("acc-2", Epoch.of(5), "{\"from\": \"a newer source\"}");

    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w", Duration.ofMinutes(5)).orElseThrow();
    queue.complete(
        job.lease(),
        "{}",
        List.of(
            new OutboxMessage("ledger", "acc-1", "{\"debit\": 100}"),
            new OutboxMessage("ledger", "acc-2", "{\"debit\": 7}")));

    PostgresFixture.Database db = schema.database();
    try (JavaProcess relay =
        JavaProcess.start(
            "relay",
            List.of(),
            RelayProcess.class,
            List.of(db.jdbcUrl(), db.user(), db.password(), schema.name(), "ledger"))) {
      int sent = relay.await(0, line -> line.startsWith("SENT "), WAIT);
      assertThat(relay.lines().get(sent)).startsWith("SENT " + id + ":0 Accepted[");
      assertThat(relay.lines().get(sent)).contains("repeat=false");
      relay.crash();
    }
    assertThat(receiver.newest("acc-1").orElseThrow().epoch()).isEqualTo(Epoch.FIRST);
    assertThat(delivered(ds, schema.name(), id))
        .as("the killed relay recorded nothing")
        .containsExactly(delivery(0, null, null), delivery(1, null, null));

    List<FencedOutcome> effects = new ArrayList<>();
    List<FencedOutbox.Relayed> resent =
        outbox.relay(
            "ledger",
            envelope -> {
              FencedOutcome outcome =
                  receiver.deliver(envelope.key(), envelope.epoch(), envelope.payload());
              if (outcome instanceof FencedOutcome.Accepted a && !a.repeat()) {
                effects.add(outcome);
              }
              return outcome;
            },
            10);

    assertThat(resent)
        .extracting(r -> r.envelope().idempotencyKey())
        .containsExactly(id + ":0", id + ":1");
    assertThat(resent.get(0).outcome())
        .isEqualTo(new FencedOutcome.Accepted("acc-1", Epoch.FIRST, true));
    assertThat(resent.get(1).outcome())
        .isEqualTo(new FencedOutcome.Superseded("acc-2", Epoch.FIRST, Epoch.of(5), null));
    assertThat(effects).as("no message took effect twice").isEmpty();
    assertThat(delivered(ds, schema.name(), id))
        .containsExactly(delivery(0, "repeat", null), delivery(1, "superseded", 5L));
    assertThat(outbox.relay("ledger", receiver, 10)).as("nothing left to send").isEmpty();
  }

  @Test
  void theResendHasNoSecondEffectAtAServiceThatDeduplicatesOnTheKey(TestSchema schema) {
    DataSource ds = schema.dataSource();
    FencedQueue queue = PostgresFencing.builder(ds).schema(schema.name()).build().queue();
    FencedOutbox outbox = PostgresFencing.builder(ds).schema(schema.name()).build().outbox();
    KeyedService.install(ds, schema.name());
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w", Duration.ofMinutes(5)).orElseThrow();
    queue.complete(
        job.lease(), "{}", List.of(new OutboxMessage("payments", "card-1", "{\"charge\": 100}")));

    PostgresFixture.Database db = schema.database();
    try (JavaProcess relay =
        JavaProcess.start(
            "relay",
            List.of(),
            RelayProcess.class,
            List.of(db.jdbcUrl(), db.user(), db.password(), schema.name(), "payments", "keyed"))) {
      int sent = relay.await(0, line -> line.startsWith("SENT "), WAIT);
      assertThat(relay.lines().get(sent)).startsWith("SENT " + id + ":0 Accepted[");
      relay.crash();
    }
    List<FencedOutbox.Relayed> resent =
        outbox.relay("payments", envelope -> KeyedService.call(ds, schema.name(), envelope), 10);

    assertThat(resent).hasSize(1);
    assertThat(resent.get(0).outcome())
        .isEqualTo(new FencedOutcome.Accepted("card-1", Epoch.FIRST, true));
    assertThat(Rows.select(ds, schema.name(), "select key from keyed_calls order by n"))
        .as("the killed relay's call, then the resend with the same key")
        .hasSize(2)
        .allSatisfy(row -> assertThat(row.get("key")).isEqualTo(id + ":0"));
    assertThat(Rows.select(ds, schema.name(), "select key from keyed_effects"))
        .as("one effect")
        .hasSize(1);
  }

  private static List<Map<String, Object>> delivered(DataSource ds, String schema, long jobId) {
    return Rows.select(
        ds,
        schema,
        "select idx, outcome, won_epoch, delivered_at is not null as delivered"
            + " from fencing_outbox where job_id = ? order by idx",
        jobId);
  }

  private static Map<String, Object> delivery(int idx, String outcome, Long wonEpoch) {
    Map<String, Object> row = new java.util.LinkedHashMap<>();
    row.put("idx", idx);
    row.put("outcome", outcome);
    row.put("won_epoch", wonEpoch);
    row.put("delivered", outcome != null);
    return row;
  }
}
