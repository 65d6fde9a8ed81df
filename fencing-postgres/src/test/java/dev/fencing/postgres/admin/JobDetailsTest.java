package dev.fencing.postgres.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A job's page holds its snapshot and what only operators see, and refuses what it cannot show. */
class JobDetailsTest {

  private static final Instant AT = Instant.parse("2025-01-01T00:00:00Z");
  private static final JobSnapshot JOB =
      new JobSnapshot(7, "q", JobState.PENDING, null, 0, 0, 3, "{}", null, null, AT, null);

  @Test
  void refusesANullJobEventOrTimeNamingIt() {
    List<Long> none = List.of();
    assertThatThrownBy(() -> new JobDetails(null, 0, "enqueued", none, AT, AT, null, of(), of()))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("job");
    assertThatThrownBy(() -> new JobDetails(JOB, 0, null, none, AT, AT, null, of(), of()))
        .hasMessage("lastEvent");
    assertThatThrownBy(() -> new JobDetails(JOB, 0, "enqueued", none, null, AT, null, of(), of()))
        .hasMessage("createdAt");
    assertThatThrownBy(() -> new JobDetails(JOB, 0, "enqueued", none, AT, null, null, of(), of()))
        .hasMessage("updatedAt");
  }

  @Test
  void keepsACopyOfItsListsAndRefusesANullInThem() {
    List<Long> settled = new ArrayList<>(List.of(1L));
    List<EpochOwner> history = new ArrayList<>(List.of(new EpochOwner(1, "w")));
    JobDetails d = new JobDetails(JOB, 0, "enqueued", settled, AT, AT, null, history, of());
    settled.clear();
    history.clear();

    assertThat(d.job()).isSameAs(JOB);
    assertThat(d.settledEpochs()).containsExactly(1L);
    assertThat(d.history()).containsExactly(new EpochOwner(1, "w"));
    assertThatThrownBy(
            () ->
                new JobDetails(
                    JOB, 0, "enqueued", Arrays.asList(1L, null), AT, AT, null, of(), of()))
        .isInstanceOf(NullPointerException.class);
  }

  private static <T> List<T> of() {
    return List.of();
  }
}
