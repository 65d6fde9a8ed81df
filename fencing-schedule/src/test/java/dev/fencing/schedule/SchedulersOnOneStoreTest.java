package dev.fencing.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.spi.ScheduleStore;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Schedulers of one process on a real PostgreSQL: definition changes, conflicts, missed slots. */
@FencingDatabase
class SchedulersOnOneStoreTest {

  private static final Pattern SLOT =
      Pattern.compile("\"slot\": \"([^\"]+)\", \"payload\": \\{\"v\": (\\d+)\\}");

  private FencedQueue queue;
  private ScheduleStore store;

  @BeforeEach
  void setUp(TestSchema schema) {
    PostgresFencing fencing =
        PostgresFencing.builder(schema.pooledDataSource(6)).schema(schema.name()).build();
    queue = fencing.queue();
    store = fencing.schedules();
  }

  private static Schedule every500ms(long revision, int v) {
    return Schedule.builder("half")
        .revision(revision)
        .queue("half")
        .payload("{\"v\": " + v + "}")
        .every(Duration.ofMillis(500))
        .missed(Missed.runAll(100))
        .grace(Duration.ofSeconds(30))
        .build();
  }

  private FencedScheduler scheduler(String name, Schedule schedule) {
    return FencedScheduler.builder(store)
        .name(name)
        .schedule(schedule)
        .pollInterval(Duration.ofMillis(50))
        .build();
  }

  /** Claims every job of the queue: slot to the payload's v, and each job's epoch is 1. */
  private TreeMap<Instant, Integer> drain(String name) {
    TreeMap<Instant, Integer> slots = new TreeMap<>();
    for (List<Job> jobs = queue.claimBatch(name, "t", Duration.ofMinutes(1), 1000);
        !jobs.isEmpty();
        jobs = queue.claimBatch(name, "t", Duration.ofMinutes(1), 1000)) {
      for (Job job : jobs) {
        assertThat(job.epoch().value()).isEqualTo(1);
        Matcher m = SLOT.matcher(job.payload());
        assertThat(m.find()).as(job.payload()).isTrue();
        assertThat(slots.put(Instant.parse(m.group(1)), Integer.parseInt(m.group(2))))
            .as("a second job for slot " + m.group(1))
            .isNull();
        queue.complete(job.lease(), "{}");
      }
    }
    return slots;
  }

  @Test
  void aNewerRevisionTakesOverWhileBothRunWithoutASlotTwiceOrMissed() throws Exception {
    FencedScheduler old = scheduler("old", every500ms(1, 1));
    FencedScheduler newer = scheduler("newer", every500ms(2, 2));
    old.start();
    Thread.sleep(1_300);
    newer.start();
    Thread.sleep(1_600);
    old.close();
    newer.close();

    TreeMap<Instant, Integer> slots = drain("half");
    List<Instant> expected = new ArrayList<>();
    for (Instant s = slots.firstKey(); !s.isAfter(slots.lastKey()); s = s.plusMillis(500)) {
      expected.add(s);
    }
    assertThat(slots.keySet())
        .as("every slot once, across the change")
        .containsExactlyElementsOf(expected);
    List<Integer> revisions = new ArrayList<>(slots.values());
    assertThat(revisions).as("the old definition's slots, then the new one's").isSorted();
    assertThat(revisions).contains(1, 2);
    assertThat(old.stats().superseded()).isPositive();
    assertThat(newer.stats().superseded()).isZero();
    assertThat(old.stats().enqueued() + newer.stats().enqueued()).isEqualTo(slots.size());
    assertThat(store.read(List.of("half")).find("half").orElseThrow().revision()).isEqualTo(2);

    // the old revision, started again, leaves the newer definition alone and enqueues nothing
    FencedScheduler again = scheduler("again", every500ms(1, 1));
    Thread.sleep(600);
    again.runRound();
    assertThat(again.stats()).isEqualTo(new SchedulerStats(0, 0, 0, 1, 0, 0));
    assertThat(store.read(List.of("half")).find("half").orElseThrow().definition())
        .contains("{\"v\": 2}");
  }

  @Test
  void anotherDefinitionUnderTheSameRevisionEnqueuesNothing() throws Exception {
    FencedScheduler first = scheduler("first", every500ms(1, 1));
    FencedScheduler other = scheduler("other", every500ms(1, 3));
    first.runRound();
    Thread.sleep(600);
    other.runRound();
    assertThat(other.stats()).isEqualTo(new SchedulerStats(0, 0, 0, 0, 1, 0));
    first.runRound();
    assertThat(first.stats().enqueued()).isPositive();
    assertThat(drain("half").values()).containsOnly(1);
  }

  @Test
  void slotsMissedWhileNoSchedulerRanFollowEachSchedulesPolicy() throws Exception {
    List<FencedScheduler> schedulers = new ArrayList<>();
    for (Missed missed : List.of(Missed.skip(), Missed.runOnce(), Missed.runAll(2))) {
      String name = policyName(missed);
      schedulers.add(
          scheduler(
              name,
              Schedule.builder(name)
                  .queue(name)
                  .payload("{\"v\": 0}")
                  .every(Duration.ofMillis(200))
                  .missed(missed)
                  .grace(Duration.ZERO)
                  .build()));
    }
    for (FencedScheduler s : schedulers) {
      s.runRound(); // registers: the mark is the store's clock now
    }
    Thread.sleep(1_100); // five or six slots, all missed by the time of the next round
    for (FencedScheduler s : schedulers) {
      s.runRound();
    }
    SchedulerStats skip = schedulers.get(0).stats();
    SchedulerStats once = schedulers.get(1).stats();
    SchedulerStats all = schedulers.get(2).stats();
    assertThat(skip.enqueued()).isZero();
    assertThat(skip.skipped()).isBetween(4L, 7L);
    assertThat(once.enqueued()).isEqualTo(1);
    assertThat(once.skipped()).isBetween(3L, 6L);
    assertThat(all.enqueued()).isEqualTo(2);
    assertThat(all.skipped()).isBetween(2L, 5L);
    assertThat(drain("skip")).isEmpty();
    assertThat(drain("run_once")).hasSize(1);
    TreeMap<Instant, Integer> twoNewest = drain("run_all_2");
    assertThat(twoNewest).hasSize(2);
    assertThat(Duration.between(twoNewest.firstKey(), twoNewest.lastKey()))
        .isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void aPayloadTheStoreRefusesFailsItsScheduleAloneEveryRound() throws Exception {
    Schedule bad =
        Schedule.builder("bad")
            .queue("bad")
            .payload("{\"a\": nope}")
            .every(Duration.ofMillis(200))
            .build();
    Schedule good =
        Schedule.builder("good")
            .queue("good")
            .payload("{\"v\": 1}")
            .every(Duration.ofMillis(200))
            .build();
    FencedScheduler scheduler = FencedScheduler.builder(store).schedule(bad).schedule(good).build();
    scheduler.runRound();
    Thread.sleep(450);
    scheduler.runRound();
    assertThat(scheduler.stats().failures()).isEqualTo(1);
    assertThat(scheduler.stats().enqueued()).isPositive();
    assertThat(drain("good")).hasSize((int) scheduler.stats().enqueued());
  }

  private static String policyName(Missed missed) {
    return switch (missed) {
      case Missed.Skip s -> "skip";
      case Missed.RunOnce o -> "run_once";
      case Missed.RunAll a -> "run_all_" + a.cap();
    };
  }
}
