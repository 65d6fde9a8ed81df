package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.OutboxMessage;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The relay: its input, two relays at once, and a sender that fails. */
@FencingDatabase
class OutboxRelayTest {

  private FencedQueue queue;
  private FencedOutbox outbox;
  private long jobId;

  @BeforeEach
  void setUp(TestSchema schema) {
    queue = PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build().queue();
    outbox = PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build().outbox();
    jobId = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w", Duration.ofMinutes(5)).orElseThrow();
    queue.complete(
        job.lease(),
        "{}",
        List.of(
            new OutboxMessage("mail", "a", "{\"n\":0}"),
            new OutboxMessage("sms", "b", "{}"),
            new OutboxMessage("mail", "c", "{\"n\":2}")));
  }

  private static FencedOutcome accept(FencedOutbox.Envelope e) {
    return new FencedOutcome.Accepted(e.key(), e.epoch(), false);
  }

  @Test
  void badInputIsRefusedNamingItAndNothingIsSent() {
    assertThatThrownBy(() -> outbox.relay("Mail", OutboxRelayTest::accept, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("destination must be a plain identifier")
        .hasMessageEndingWith("but was 'Mail'");
    assertThatThrownBy(() -> outbox.relay("mail", OutboxRelayTest::accept, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("max must be between 1 and 10000, but was 0");
    assertThatThrownBy(() -> outbox.relay("mail", (FencedOutbox.Sender) null, 1))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("sender");
    assertThatThrownBy(() -> PostgresFencing.builder(null))
        .isInstanceOf(NullPointerException.class);
    assertThat(outbox.relay("mail", OutboxRelayTest::accept, 10)).hasSize(2);
  }

  @Test
  void aRelaySendsOneDestinationOldestFirstUpToMaxWithTheCommitsEpoch() {
    List<FencedOutbox.Relayed> first = outbox.relay("mail", OutboxRelayTest::accept, 1);
    assertThat(first)
        .extracting(FencedOutbox.Relayed::envelope)
        .containsExactly(
            new FencedOutbox.Envelope(jobId, 0, Epoch.FIRST, "mail", "a", "{\"n\": 0}"));
    assertThat(outbox.relay("mail", OutboxRelayTest::accept, 10))
        .extracting(r -> r.envelope().index())
        .containsExactly(2);
    assertThat(outbox.relay("mail", OutboxRelayTest::accept, 10)).isEmpty();
    assertThat(outbox.relay("sms", OutboxRelayTest::accept, 10)).hasSize(1);
  }

  @Test
  void aMessageBeingSentIsNotSentByASecondRelayAtTheSameTime() throws Exception {
    CountDownLatch sending = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<List<FencedOutbox.Relayed>> slow =
        CompletableFuture.supplyAsync(
            () ->
                outbox.relay(
                    "mail",
                    e -> {
                      sending.countDown();
                      await(release);
                      return accept(e);
                    },
                    1));
    assertThat(sending.await(30, TimeUnit.SECONDS)).isTrue();

    List<FencedOutbox.Relayed> other = outbox.relay("mail", OutboxRelayTest::accept, 10);
    release.countDown();

    assertThat(other).extracting(r -> r.envelope().index()).containsExactly(2);
    assertThat(slow.get(30, TimeUnit.SECONDS))
        .extracting(r -> r.envelope().index())
        .containsExactly(0);
  }

  @Test
  void aMessageWhoseSenderFailsStaysUndeliveredAndIsSentNextTime() {
    assertThatThrownBy(
            () ->
                outbox.relay(
                    "mail",
                    e -> {
                      throw new IllegalStateException("receiver down");
                    },
                    10))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("receiver down");
    assertThatThrownBy(() -> outbox.relay("mail", e -> null, 10))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("the sender returned no outcome");
    assertThat(outbox.relay("mail", OutboxRelayTest::accept, 10))
        .extracting(r -> r.envelope().index())
        .containsExactly(0, 2);
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
