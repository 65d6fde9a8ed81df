package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.FencingDatabase;
import dev.fencing.testkit.PostgresFixture;
import dev.fencing.testkit.WorkerProcess;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The seed's email, which no receiver can take back, sent through the outbox: the zombie (a frozen
 * JVM) and the new owner both finish the job with an email, each in the transaction of its
 * compare-and-set; the zombie's is refused with its commit, so it never exists, and the relay sends
 * exactly one email, the new owner's.
 */
@FencingDatabase
class ZombieEmailThroughTheOutboxTest {

  private static final String SCHEMA = "fencing_demo_outbox";
  private static final String QUEUE = "emails";

  @Test
  void theZombiesEmailIsNeverSent(PostgresFixture.Database db) {
    db.recreateSchema(SCHEMA);
    FencedQueue queue = new PostgresBackend().queue(db.dataSource(), SCHEMA);
    long id = queue.enqueue(QUEUE, "{\"to\": \"ada@example.com\"}");
    try (WorkerProcess zombie = WorkerProcess.start("zombie", PostgresBackend.class, db, SCHEMA);
        WorkerProcess healthy =
            WorkerProcess.start("new owner", PostgresBackend.class, db, SCHEMA)) {
      assertThat(zombie.call("claim " + QUEUE + " zombie 800"))
          .startsWith("ok claimed " + id + " 1");
      zombie.freeze();
      String reclaim = "ok none";
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (reclaim.equals("ok none") && System.nanoTime() < deadline) {
        reclaim = healthy.call("claim " + QUEUE + " healthy 60000");
      }
      assertThat(reclaim).startsWith("ok claimed " + id + " 2");
      assertThat(healthy.call("mail " + id + " {\"by\": \"new owner\"}"))
          .startsWith("ok accepted 2");
      zombie.thaw();
      assertThat(zombie.call("mail " + id + " {\"by\": \"zombie\"}"))
          .isEqualTo("refused Superseded epoch=1 current=2");
    }

    List<FencedOutbox.Envelope> sent = new ArrayList<>();
    FencedOutbox outbox = PostgresFencing.builder(db.dataSource()).schema(SCHEMA).build().outbox();
    List<FencedOutbox.Relayed> relayed =
        outbox.relay(
            "mail",
            envelope -> {
              sent.add(envelope);
              return new FencedOutcome.Accepted(envelope.key(), envelope.epoch(), false);
            },
            100);
    assertThat(relayed).hasSize(1);
    assertThat(sent).hasSize(1);
    assertThat(sent.getFirst().payload()).contains("new owner");
    assertThat(sent.getFirst().epoch().value()).isEqualTo(2);
    assertThat(
            outbox.relay(
                "mail",
                envelope -> {
                  throw new AssertionError("sent twice: " + envelope);
                },
                100))
        .isEmpty();
  }
}
