package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.StoreUnavailableException;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Text the driver cannot send is named with what is wrong and where; values are shown up to 120
 * characters; an error is cut to exactly 4,000 characters; failures that are not about the data
 * pass through as they are. On both engines.
 */
@FencingDatabase
class PreciseInputCheckingTest {

  private TestSchema schema;

  @BeforeEach
  void build(TestSchema schema) {
    this.schema = schema;
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void theCharacterTheDriverCannotSendIsNamedWithItsIndex(PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    assertUnsendable(queue, "{\"a\": \"x\u0000\"}", "a NUL character at index 8");
    assertUnsendable(queue, "\"\ud800\"", "a lone high surrogate at index 1");
    assertUnsendable(queue, "\"\ud800", "a lone high surrogate at index 1");
    assertUnsendable(queue, "\"\ud83d\ud83d\ude00\"", "a lone high surrogate at index 1");
    assertUnsendable(queue, "\"\udc00\"", "a lone low surrogate at index 1");
    assertUnsendable(queue, "\udc00", "a lone low surrogate at index 0");
    assertUnsendable(queue, "\"a\ude00\ud83d\"", "a lone low surrogate at index 2");
    long id = queue.enqueue("q", "\"\ud83d\ude00 ok\"");
    assertThat(queue.find(id).orElseThrow().payload()).isEqualTo("\"\ud83d\ude00 ok\"");
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aRefusedValueOf120CharactersIsShownWhole(PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    String bad = "{" + "x".repeat(119);
    assertThatThrownBy(() -> queue.enqueue("q", bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("but was '" + bad + "' (");
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void anErrorIsCutToExactlyFourThousandCharacters(PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    String emoji = "\ud83d\ude00";
    assertThat(keptError(queue, "e".repeat(4001))).isEqualTo("e".repeat(4000));
    assertThat(keptError(queue, "y".repeat(3998) + emoji + "tail"))
        .isEqualTo("y".repeat(3998) + emoji);
    assertThat(keptError(queue, "z".repeat(3999) + emoji)).isEqualTo("z".repeat(3999));
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void anErrorEndingInHalfASurrogatePairIsStoredWithAReplacementCharacter(
      PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    assertThat(keptError(queue, "end \ud83d")).isEqualTo("end \ufffd");
    assertThat(keptError(queue, "\ude00 start")).isEqualTo("\ufffd start");
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aFailureThatIsNotAboutTheDataPassesThroughEnqueueAndCompleteAll(
      PostgresFencing.Engine engine) throws Exception {
    FencedQueue queue = queue(engine);
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();
    DataSource pool = schema.pooledDataSource(1);
    FencedQueue closed =
        PostgresFencing.builder(pool)
            .schema(schema.name())
            .engine(engine)
            .install(false)
            .build()
            .queue();
    ((AutoCloseable) pool).close();

    assertThatThrownBy(() -> closed.enqueue("q", "{}"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(
            () -> closed.completeAll(List.of(new FencedQueue.Completion(job.lease(), "{}"))))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("closed");
    assertThat(queue.find(id).orElseThrow().result()).isNull();
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void findingTheFirstBadPayloadOfABatchTakesAFewProbesNotOneEach(PostgresFencing.Engine engine) {
    queue(engine); // installs the schema, so that the counted queue does not
    AtomicInteger statements = new AtomicInteger();
    FencedQueue counted =
        PostgresFencing.builder(Rows.counting(schema.dataSource(), statements))
            .schema(schema.name())
            .engine(engine)
            .install(false)
            .build()
            .queue();
    List<String> payloads = new ArrayList<>(Collections.nCopies(64, "{}"));
    payloads.set(0, "{bad");
    payloads.set(63, "{bad too");

    assertThatThrownBy(() -> counted.enqueueAll("q", payloads))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("payloads[0] must be JSON");
    assertThat(statements.get())
        .as("the insert, then halves of the batch down to the first bad one: 1 + 2 log2(64)")
        .isLessThanOrEqualTo(14);
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aBatchOfExactlyOneChunkIsEnqueuedOnceAndNothingMore(PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    List<Long> ids = queue.enqueueAll("chunk", Collections.nCopies(10_000, "{}"));
    assertThat(ids).hasSize(10_000).doesNotHaveDuplicates();
    assertThat(Rows.jobs(schema.dataSource(), schema.name(), engine, "queue = 'chunk'"))
        .isEqualTo(10_000L);
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aMissingLeaseInARenewalBatchIsNamedByItsPosition(PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    Lease lease = new Lease(1, "w1", Epoch.FIRST, Instant.now());
    assertThatThrownBy(() -> queue.renewAll(Arrays.asList(lease, null), Duration.ofMinutes(1)))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("leases[1]");
  }

  private static void assertUnsendable(FencedQueue queue, String payload, String problem) {
    // the value itself is shown as it is (a NUL included), so only its frame is pinned here
    assertThatThrownBy(() -> queue.enqueue("q", payload))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("payload must be JSON that PostgreSQL jsonb accepts, but was '")
        .hasMessageEndingWith("' (" + problem + " cannot be stored)");
  }

  private static String keptError(FencedQueue queue, String error) {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();
    queue.fail(job.lease(), error, Duration.ofHours(1));
    return queue.find(id).orElseThrow().lastError();
  }

  /** The queue under test, which installs the schema for {@code engine}. */
  private FencedQueue queue(PostgresFencing.Engine engine) {
    return PostgresFencing.builder(schema.dataSource())
        .schema(schema.name())
        .engine(engine)
        .build()
        .queue();
  }
}
