package dev.fencing.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Enqueued;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScheduleValuesTest {

  private static final Instant MARK = Instant.parse("2030-01-01T00:00:00Z");

  @Test
  void aStoredScheduleChecksItsNameAndRevision() {
    ScheduleState s = new ScheduleState("nightly.report-1_a", 1, "d", MARK);
    assertThat(s.name()).isEqualTo("nightly.report-1_a");
    assertThat(dev.fencing.internal.Validate.scheduleName("a.b")).isEqualTo("a.b");
    assertThat(new ScheduleState("x".repeat(100), Long.MAX_VALUE, "", MARK).revision())
        .isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> new ScheduleState("x".repeat(101), 1, "d", MARK))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("name must be 1 to 100 of A-Z a-z 0-9 . _ -, but was 'xxx");
    assertThatThrownBy(() -> new ScheduleState("", 1, "d", MARK))
        .hasMessage("name must be 1 to 100 of A-Z a-z 0-9 . _ -, but was ''");
    assertThatThrownBy(() -> new ScheduleState("a/b", 1, "d", MARK))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ScheduleState(null, 1, "d", MARK))
        .hasMessage("name must be 1 to 100 of A-Z a-z 0-9 . _ -, but was null");
    assertThatThrownBy(() -> new ScheduleState("s", 0, "d", MARK))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("revision");
    assertThatThrownBy(() -> new ScheduleState("s", 1, null, MARK))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("definition");
    assertThatThrownBy(() -> new ScheduleState("s", 1, "d", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("mark");
  }

  @Test
  void aSnapshotFindsByNameAndCopiesItsList() {
    ScheduleState a = new ScheduleState("a", 1, "d", MARK);
    ScheduleState b = new ScheduleState("b", 2, "d", MARK);
    List<ScheduleState> given = new ArrayList<>(List.of(a, b));
    ScheduleSnapshot snapshot = new ScheduleSnapshot(MARK, given);
    given.clear();
    assertThat(snapshot.schedules()).containsExactly(a, b);
    assertThat(snapshot.find("b")).contains(b);
    assertThat(snapshot.find("c")).isEmpty();
    assertThatThrownBy(() -> new ScheduleSnapshot(null, List.of()))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("now");
  }

  @Test
  void anAdvanceCopiesItsJobs() {
    List<Enqueued> jobs = new ArrayList<>(List.of(new Enqueued(1, "k", true)));
    SlotAdvance.Advanced advanced = new SlotAdvance.Advanced(jobs);
    jobs.clear();
    assertThat(advanced.jobs()).containsExactly(new Enqueued(1, "k", true));
    assertThat(new SlotAdvance.Refused(null).stored()).isNull();
  }
}
