package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Enqueued;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.KeyedJob;
import dev.fencing.spi.ScheduleState;
import dev.fencing.spi.ScheduleStore;
import dev.fencing.spi.SlotAdvance;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The schedules' marks ({@link PostgresFencing#schedules()}): the highest revision wins, and an
 * advance moves the mark by a compare-and-set from the value read, in the statement that enqueues
 * the slots' jobs.
 */
@FencingDatabase
class ScheduleStoreTest {

  private static final Instant SLOT_1 = Instant.parse("2030-01-01T00:00:00Z");
  private static final Instant SLOT_2 = Instant.parse("2030-01-01T00:01:00Z");

  private TestSchema schema;
  private DataSource ds;
  private FencedQueue queue;
  private ScheduleStore store;

  /** The engine under test; {@link AppendOnlyScheduleStoreTest} runs the same on the other one. */
  PostgresFencing.Engine engine() {
    return PostgresFencing.Engine.UPDATE_IN_PLACE;
  }

  /** The engine's job table. */
  String jobTable() {
    return "fencing_job";
  }

  @BeforeEach
  void setUp(TestSchema schema) {
    this.schema = schema;
    this.ds = schema.pooledDataSource(4);
    PostgresFencing fencing =
        PostgresFencing.builder(ds).schema(schema.name()).engine(engine()).build();
    this.queue = fencing.queue();
    this.store = fencing.schedules();
  }

  private static KeyedJob job(Instant slot) {
    return new KeyedJob("schedule:s@" + slot, "{\"slot\": \"" + slot + "\"}");
  }

  private List<String> jobKeys() {
    return queue.claimBatch("q", "test", Duration.ofMinutes(1), 100).stream()
        .map(Job::payload)
        .toList();
  }

  @Test
  void theHighestRevisionWinsAndTheMarkStartsAtTheFirstRegistration() {
    Instant before = store.list().now();
    ScheduleState first = store.register("s", 1, "a");
    assertThat(first.mark()).isAfterOrEqualTo(before);
    assertThat(store.register("s", 3, "c")).isEqualTo(new ScheduleState("s", 3, "c", first.mark()));
    assertThat(store.register("s", 2, "b")).isEqualTo(new ScheduleState("s", 3, "c", first.mark()));
    assertThat(store.register("s", 3, "other"))
        .isEqualTo(new ScheduleState("s", 3, "c", first.mark()));
    assertThat(store.read(List.of("s", "absent")).schedules())
        .containsExactly(store.register("s", 1, "a"));
  }

  @Test
  void anAdvanceEnqueuesTheSlotsJobsAndMovesTheMark() {
    Instant mark = store.register("s", 1, "a").mark();
    SlotAdvance advance = store.advance("s", 1, mark, SLOT_1, "q", List.of(job(SLOT_1)));
    assertThat(advance).isInstanceOf(SlotAdvance.Advanced.class);
    assertThat(((SlotAdvance.Advanced) advance).jobs())
        .singleElement()
        .extracting(Enqueued::key, Enqueued::created)
        .containsExactly("schedule:s@" + SLOT_1, true);
    assertThat(store.read(Set.of("s")).find("s").orElseThrow().mark()).isEqualTo(SLOT_1);
    assertThat(jobKeys()).containsExactly("{\"slot\": \"" + SLOT_1 + "\"}");
    // no jobs: the slots are skipped, and the mark still moves
    assertThat(store.advance("s", 1, SLOT_1, SLOT_2, "q", List.of()))
        .isEqualTo(new SlotAdvance.Advanced(List.of()));
    assertThat(store.read(Set.of("s")).find("s").orElseThrow().mark()).isEqualTo(SLOT_2);
  }

  /**
   * The guard against a zombie scheduler: it read the mark, froze, and advances from that old mark
   * after another scheduler enqueued the slot and retention removed the job (and so its key). The
   * compare-and-set on the mark refuses it; without it, the slot would run a second time.
   */
  @Test
  void aStaleAdvanceWritesNothingEvenAfterRetentionRemovedTheSlotsJob() throws SQLException {
    Instant read = store.register("s", 1, "a").mark();
    assertThat(store.advance("s", 1, read, SLOT_1, "q", List.of(job(SLOT_1))))
        .isInstanceOf(SlotAdvance.Advanced.class);
    deleteAllJobs();

    SlotAdvance late = store.advance("s", 1, read, SLOT_1, "q", List.of(job(SLOT_1)));

    assertThat(late).isEqualTo(new SlotAdvance.Refused(new ScheduleState("s", 1, "a", SLOT_1)));
    assertThat(jobKeys()).isEmpty();
    assertThat(store.read(Set.of("s")).find("s").orElseThrow().mark()).isEqualTo(SLOT_1);
  }

  @Test
  void anAdvanceUnderAnOlderRevisionWritesNothing() {
    Instant read = store.register("s", 1, "a").mark();
    store.register("s", 2, "b");
    assertThat(store.advance("s", 1, read, SLOT_1, "q", List.of(job(SLOT_1))))
        .isEqualTo(new SlotAdvance.Refused(new ScheduleState("s", 2, "b", read)));
    assertThat(jobKeys()).isEmpty();
    assertThat(store.advance("s", 1, read, SLOT_1, "q", List.of()))
        .isInstanceOf(SlotAdvance.Refused.class);
    assertThat(store.advance("absent", 1, read, SLOT_1, "q", List.of()))
        .isEqualTo(new SlotAdvance.Refused(null));
  }

  @Test
  void aKeyHeldAlreadyAddsNoJobButTheMarkMoves() {
    Instant read = store.register("s", 1, "a").mark();
    Enqueued held = queue.enqueue("q", job(SLOT_1));
    SlotAdvance advance =
        store.advance("s", 1, read, SLOT_2, "q", List.of(job(SLOT_1), job(SLOT_2)));
    assertThat(advance).isInstanceOf(SlotAdvance.Advanced.class);
    List<Enqueued> jobs = ((SlotAdvance.Advanced) advance).jobs();
    assertThat(jobs.get(0)).isEqualTo(new Enqueued(held.id(), held.key(), false));
    assertThat(jobs.get(1).created()).isTrue();
    assertThat(store.read(Set.of("s")).find("s").orElseThrow().mark()).isEqualTo(SLOT_2);
    assertThat(jobKeys()).hasSize(2);
  }

  @Test
  void badParametersAreRefusedBeforeAnythingIsWritten() {
    Instant read = store.register("s", 1, "a").mark();
    assertThatThrownBy(() -> store.advance("s", 1, SLOT_1, SLOT_1, "q", List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("to must be after from");
    assertThatThrownBy(
            () ->
                store.advance(
                    "s", 1, read, SLOT_1, "q", List.of(new KeyedJob("k", "{\"a\": nope}"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("jobs[0].payload must be JSON");
    assertThatThrownBy(() -> store.register("a b", 1, "a"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a b'");
    assertThatThrownBy(() -> store.register("s", 0, "a"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("revision");
    assertThat(store.read(Set.of("s")).find("s").orElseThrow().mark()).isEqualTo(read);
  }

  private void deleteAllJobs() throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("delete from " + schema.name() + "." + jobTable());
    }
  }
}
