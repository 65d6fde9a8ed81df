package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Enqueued;
import dev.fencing.FencedQueue;
import dev.fencing.KeyedJob;
import dev.fencing.OutcomeUnknownException;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.fault.FlakyProxy;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The connection drops after the COMMIT of an enqueue was sent and applied. Keyed, the call
 * resolves it by its keys: one row per key, reported as created by this call. Unkeyed, it says the
 * outcome is unknown.
 */
@FencingDatabase
class LostAcknowledgementOfEnqueueTest {

  private FlakyProxy proxy;
  private TestSchema schema;

  @BeforeEach
  void startProxy(TestSchema schema) {
    this.schema = schema;
    proxy = FlakyProxy.inFrontOf(schema.database());
  }

  @AfterEach
  void stopProxy() {
    proxy.close();
  }

  @Test
  void aKeyedJobWhoseCommitLandedUnheardIsWrittenOnceAndReportedAsCreated() {
    FencedQueue queue = queueThroughProxy(3);
    proxy.loseNextAcknowledgement("COMMIT");
    Enqueued e = queue.enqueue("q", new KeyedJob("order-1", "{\"n\": 1}"));

    assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
    assertThat(e.created()).isTrue();
    assertThat(rows("order-1")).isEqualTo(1);
    assertThat(queue.find(e.id())).isPresent();
  }

  @Test
  void aKeyedBatchWhoseCommitLandedUnheardIsWrittenOncePerKey() {
    FencedQueue queue = queueThroughProxy(3);
    queue.enqueue("q", new KeyedJob("k3", "{\"i\": 3}"));
    List<KeyedJob> batch =
        IntStream.range(0, 100).mapToObj(i -> new KeyedJob("k" + i, "{\"i\": " + i + "}")).toList();
    proxy.loseNextAcknowledgement("COMMIT");
    List<Enqueued> out = queue.enqueueKeyed("q", batch);

    assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
    assertThat(out).hasSize(100);
    assertThat(out).filteredOn(e -> !e.created()).extracting(Enqueued::key).containsExactly("k3");
    assertThat(total()).isEqualTo(100);
  }

  @Test
  void aProducerRetryingByHandAfterTheErrorGetsTheIds() {
    FencedQueue queue = queueThroughProxy(0);
    List<KeyedJob> batch = List.of(new KeyedJob("a", "{}"), new KeyedJob("b", "{}"));
    proxy.loseNextAcknowledgement("COMMIT");
    assertThatThrownBy(() -> queue.enqueueKeyed("q", batch)).isInstanceOf(RuntimeException.class);
    assertThat(total()).as("the commit landed although its acknowledgement was lost").isEqualTo(2);

    List<Enqueued> retried = queue.enqueueKeyed("q", batch);
    assertThat(retried).extracting(Enqueued::created).containsExactly(false, false);
    assertThat(total()).isEqualTo(2);
  }

  @Test
  void anUnkeyedEnqueueWhoseCommitLandedUnheardSaysTheOutcomeIsUnknown() {
    FencedQueue queue = queueThroughProxy(3);
    proxy.loseNextAcknowledgement("COMMIT");
    assertThatThrownBy(() -> queue.enqueueAll("q", List.of("{}", "{}")))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("enqueueing 2 jobs on queue 'q'")
        .hasMessageContaining("may or may not have been added")
        .hasMessageContaining("a retry may add them twice")
        .hasMessageContaining("idempotency keys");
    assertThat(total()).as("it did land: retrying would have duplicated it").isEqualTo(2);
  }

  private long rows(String key) {
    return (long)
        Rows.select(
                schema.database().dataSource(),
                schema.name(),
                "select count(*) as n from fencing_job where idempotency_key = ?",
                key)
            .getFirst()
            .get("n");
  }

  private long total() {
    return (long)
        Rows.select(
                schema.database().dataSource(),
                schema.name(),
                "select count(*) as n from fencing_job")
            .getFirst()
            .get("n");
  }

  private FencedQueue queueThroughProxy(int transientRetries) {
    DataSource ds = proxy.database().dataSource();
    return PostgresFencing.builder(ds)
        .schema(schema.name())
        .transientRetries(transientRetries)
        .retryWait(Duration.ofMillis(10))
        .build()
        .queue();
  }
}
