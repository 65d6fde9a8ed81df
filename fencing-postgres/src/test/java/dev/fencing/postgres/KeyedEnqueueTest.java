package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Enqueued;
import dev.fencing.FencedQueue;
import dev.fencing.KeyedJob;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Idempotency keys on enqueue: a key names one job per queue, for as long as the job exists. */
@FencingDatabase
class KeyedEnqueueTest {

  private TestSchema schema;
  private DataSource ds;
  private FencedQueue queue;

  /** The engine under test; {@link AppendOnlyKeyedEnqueueTest} runs the same on the other one. */
  PostgresFencing.Engine engine() {
    return PostgresFencing.Engine.UPDATE_IN_PLACE;
  }

  @BeforeEach
  void setUp(TestSchema schema) {
    this.schema = schema;
    this.ds = schema.pooledDataSource(8);
    this.queue = PostgresFencing.builder(ds).schema(schema.name()).engine(engine()).build().queue();
  }

  @Test
  void enqueueingAKeyAgainReturnsTheSameJobAndWritesNothing() {
    Enqueued first = queue.enqueue("q", new KeyedJob("order-42", "{\"n\": 1}"));
    Enqueued again = queue.enqueue("q", new KeyedJob("order-42", "{\"n\": 1}"));

    assertThat(first.created()).isTrue();
    assertThat(again).isEqualTo(new Enqueued(first.id(), "order-42", false));
    assertThat(jobs()).isEqualTo(1);
  }

  @Test
  void aBatchReturnsExistingIdsForTakenKeysAndWritesTheRest() {
    Enqueued taken = queue.enqueue("q", new KeyedJob("b", "{}"));
    List<Enqueued> batch =
        queue.enqueueKeyed(
            "q",
            List.of(new KeyedJob("a", "{}"), new KeyedJob("b", "{}"), new KeyedJob("c", "{}")));

    assertThat(batch).extracting(Enqueued::key).containsExactly("a", "b", "c");
    assertThat(batch).extracting(Enqueued::created).containsExactly(true, false, true);
    assertThat(batch.get(1).id()).isEqualTo(taken.id());
    assertThat(jobs()).isEqualTo(3);
  }

  @Test
  void payloadsAreComparedAsJsonValues() {
    Enqueued first = queue.enqueue("q", new KeyedJob("k", "{\"a\": 1, \"b\": [1, 2]}"));
    Enqueued again = queue.enqueue("q", new KeyedJob("k", "{\"b\":[1,2],\"a\":1}"));
    assertThat(again.id()).isEqualTo(first.id());
    assertThat(again.created()).isFalse();
  }

  @Test
  void theSameKeyWithAnotherPayloadIsRefusedAndNothingOfTheBatchIsWritten() {
    Enqueued first = queue.enqueue("q", new KeyedJob("k", "{\"to\": \"ada\"}"));
    assertThatThrownBy(
            () ->
                queue.enqueueKeyed(
                    "q",
                    List.of(new KeyedJob("new", "{}"), new KeyedJob("k", "{\"to\": \"bob\"}"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jobs[1].key 'k'")
        .hasMessageContaining("job " + first.id())
        .hasMessageContaining("different payload")
        .hasMessageContaining("nothing was enqueued");
    assertThat(jobs()).isEqualTo(1);
  }

  @Test
  void keysArePerQueue() {
    Enqueued inQ = queue.enqueue("q", new KeyedJob("k", "{}"));
    Enqueued inOther = queue.enqueue("other", new KeyedJob("k", "{}"));
    assertThat(inOther.created()).isTrue();
    assertThat(inOther.id()).isNotEqualTo(inQ.id());
  }

  @Test
  void aKeyedJobIsClaimedLikeAnyOther() {
    Enqueued e = queue.enqueue("q", new KeyedJob("k", "{\"x\": 1}"));
    assertThat(queue.claim("q", "w1", java.time.Duration.ofMinutes(1)).orElseThrow().id())
        .isEqualTo(e.id());
  }

  @Test
  void aKeyRepeatedInsideOneBatchIsRefusedBeforeAnythingIsWritten() {
    assertThatThrownBy(
            () ->
                queue.enqueueKeyed(
                    "q",
                    List.of(
                        new KeyedJob("a", "{}"), new KeyedJob("b", "{}"), new KeyedJob("a", "{}"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("jobs[2].key repeats jobs[0].key 'a': a key names one job");
    assertThat(jobs()).isZero();
  }

  @Test
  void badKeysAreRefusedByName() {
    assertThatThrownBy(() -> new KeyedJob(null, "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "key must be non-blank well-formed text of at most 200 characters, but was null");
    assertThatThrownBy(() -> new KeyedJob("  ", "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("but was '  '");
    assertThatThrownBy(() -> new KeyedJob("x".repeat(201), "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("(201 characters)");
    assertThatThrownBy(() -> new KeyedJob("a\0b", "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a\\0b'");
    assertThatThrownBy(
            () -> queue.enqueueKeyed("q", java.util.Arrays.asList(new KeyedJob("a", "{}"), null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("jobs[1] must be a job, but was null");
    assertThatThrownBy(() -> queue.enqueueKeyed("Bad Queue", List.of(new KeyedJob("a", "{}"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queue")
        .hasMessageContaining("Bad Queue");
    assertThat(jobs()).isZero();
  }

  @Test
  void badJsonIsRefusedNamingTheJobAndNothingIsWritten() {
    assertThatThrownBy(
            () ->
                queue.enqueueKeyed(
                    "q", List.of(new KeyedJob("a", "{}"), new KeyedJob("b", "{not json"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jobs[1].payload");
    assertThat(jobs()).isZero();
  }

  @Test
  void producersRacingOnTheSameKeysMakeOneJobPerKey() throws Exception {
    List<KeyedJob> batch =
        IntStream.range(0, 500).mapToObj(i -> new KeyedJob("k" + i, "{\"i\": " + i + "}")).toList();
    List<KeyedJob> reversed = new ArrayList<>(batch);
    java.util.Collections.reverse(reversed);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<Enqueued>>> results = new ArrayList<>();
      for (int p = 0; p < 4; p++) {
        List<KeyedJob> mine = p % 2 == 0 ? batch : reversed;
        FencedQueue producer =
            PostgresFencing.builder(ds)
                .schema(schema.name())
                .install(false)
                .engine(engine())
                .build()
                .queue();
        Callable<List<Enqueued>> call = () -> producer.enqueueKeyed("q", mine);
        results.add(pool.submit(call));
      }
      java.util.Map<String, Long> ids = new java.util.HashMap<>();
      java.util.Map<String, Integer> created = new java.util.HashMap<>();
      for (Future<List<Enqueued>> result : results) {
        for (Enqueued e : result.get()) {
          Long before = ids.putIfAbsent(e.key(), e.id());
          assertThat(before == null || before == e.id()).as("one id for " + e.key()).isTrue();
          created.merge(e.key(), e.created() ? 1 : 0, Integer::sum);
        }
      }
      assertThat(jobs()).isEqualTo(500);
      assertThat(created.values()).containsOnly(1);
    } finally {
      pool.shutdownNow();
    }
  }

  private long jobs() {
    return (long)
        Rows.select(
                ds,
                schema.name(),
                "select count(*) as n from "
                    + (engine() == PostgresFencing.Engine.APPEND_ONLY
                        ? "fencing_append_job"
                        : "fencing_job"))
            .getFirst()
            .get("n");
  }
}
