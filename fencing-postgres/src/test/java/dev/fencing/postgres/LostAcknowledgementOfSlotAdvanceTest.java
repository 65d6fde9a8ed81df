package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Enqueued;
import dev.fencing.KeyedJob;
import dev.fencing.spi.ScheduleStore;
import dev.fencing.spi.SlotAdvance;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.fault.FlakyProxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The connection drops after an advance of a schedule's mark ran and committed (one statement in
 * autocommit). Its retry finds the mark moved, by its own first try: the token written with the
 * mark says so, and the call reports the advance and the job it wrote.
 */
@FencingDatabase
class LostAcknowledgementOfSlotAdvanceTest {

  private static final Instant SLOT = Instant.parse("2030-01-01T00:00:00Z");

  private FlakyProxy proxy;
  private ScheduleStore store;

  @BeforeEach
  void startProxy(TestSchema schema) {
    proxy = FlakyProxy.inFrontOf(schema.database());
    store =
        PostgresFencing.builder(proxy.database().dataSource())
            .schema(schema.name())
            .transientRetries(3)
            .retryWait(Duration.ofMillis(10))
            .build()
            .schedules();
  }

  @AfterEach
  void stopProxy() {
    proxy.close();
  }

  @Test
  void anAdvanceWhoseAcknowledgementWasLostIsReportedAsItsOwn() {
    Instant read = store.register("s", 1, "d").mark();
    KeyedJob job = new KeyedJob("schedule:s@" + SLOT, "{}");
    proxy.loseNextAcknowledgement("INSERT");

    SlotAdvance advance = store.advance("s", 1, read, SLOT, "q", List.of(job));

    assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
    assertThat(advance).isInstanceOf(SlotAdvance.Advanced.class);
    assertThat(((SlotAdvance.Advanced) advance).jobs())
        .singleElement()
        .extracting(Enqueued::key, Enqueued::created)
        .containsExactly(job.key(), true);
    assertThat(store.read(List.of("s")).find("s").orElseThrow().mark()).isEqualTo(SLOT);
  }
}
