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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The connection drops after the COMMIT of an enqueue was sent and applied. Keyed, the call
 * resolves it by its keys: one row per key, reported as created by this call. Unkeyed, it says the
 * outcome is unknown. On both engines, counting the rows each writes per job.
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

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aKeyedJobWhoseCommitLandedUnheardIsWrittenOnceAndReportedAsCreated(
      PostgresFencing.Engine engine) {
    FencedQueue queue = queueThroughProxy(engine, 3);
    proxy.loseNextAcknowledgement("COMMIT");
    Enqueued e = queue.enqueue("q", new KeyedJob("order-1", "{\"n\": 1}"));

    assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
    assertThat(e.created()).isTrue();
    assertThat(rows(engine, "order-1")).isEqualTo(1);
    assertThat(queue.find(e.id())).isPresent();
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aKeyedBatchWhoseCommitLandedUnheardIsWrittenOncePerKey(PostgresFencing.Engine engine) {
    FencedQueue queue = queueThroughProxy(engine, 3);
    queue.enqueue("q", new KeyedJob("k3", "{\"i\": 3}"));
    List<KeyedJob> batch =
        IntStream.range(0, 100).mapToObj(i -> new KeyedJob("k" + i, "{\"i\": " + i + "}")).toList();
    proxy.loseNextAcknowledgement("COMMIT");
    List<Enqueued> out = queue.enqueueKeyed("q", batch);

    assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
    assertThat(out).hasSize(100);
    assertThat(out).filteredOn(e -> !e.created()).extracting(Enqueued::key).containsExactly("k3");
    assertThat(total(engine)).isEqualTo(100);
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aProducerRetryingByHandAfterTheErrorGetsTheIds(PostgresFencing.Engine engine) {
    FencedQueue queue = queueThroughProxy(engine, 0);
    List<KeyedJob> batch = List.of(new KeyedJob("a", "{}"), new KeyedJob("b", "{}"));
    proxy.loseNextAcknowledgement("COMMIT");
    assertThatThrownBy(() -> queue.enqueueKeyed("q", batch)).isInstanceOf(RuntimeException.class);
    assertThat(total(engine))
        .as("the commit landed although its acknowledgement was lost")
        .isEqualTo(2);

    List<Enqueued> retried = queue.enqueueKeyed("q", batch);
    assertThat(retried).extracting(Enqueued::created).containsExactly(false, false);
    assertThat(total(engine)).isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void anUnkeyedEnqueueWhoseCommitLandedUnheardSaysTheOutcomeIsUnknown(
      PostgresFencing.Engine engine) {
    FencedQueue queue = queueThroughProxy(engine, 3);
    proxy.loseNextAcknowledgement("COMMIT");
    assertThatThrownBy(() -> queue.enqueueAll("q", List.of("{}", "{}")))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("enqueueing 2 jobs on queue 'q'")
        .hasMessageContaining("may or may not have been added")
        .hasMessageContaining("a retry may add them twice")
        .hasMessageContaining("idempotency keys");
    assertThat(total(engine)).as("it did land: retrying would have duplicated it").isEqualTo(2);
  }

  /** The rows written for {@code key}, in the engine's job table. */
  private long rows(PostgresFencing.Engine engine, String key) {
    return Rows.jobs(
        schema.database().dataSource(), schema.name(), engine, "idempotency_key = ?", key);
  }

  /** Every row of the engine's job table. */
  private long total(PostgresFencing.Engine engine) {
    return Rows.jobs(schema.database().dataSource(), schema.name(), engine, "true");
  }

  private FencedQueue queueThroughProxy(PostgresFencing.Engine engine, int transientRetries) {
    DataSource ds = proxy.database().dataSource();
    return PostgresFencing.builder(ds)
        .schema(schema.name())
        .engine(engine)
        .transientRetries(transientRetries)
        .retryWait(Duration.ofMillis(10))
        .build()
        .queue();
  }
}
