package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The small value types: epochs order, jobs and states show what they hold. */
class ApiValuesTest {

  @Test
  void epochOneIsTheFirstAndValid() {
    assertThat(Epoch.of(1)).isEqualTo(Epoch.FIRST);
    assertThat(Epoch.of(1).value()).isEqualTo(1);
    assertThat(Epoch.of(Long.MAX_VALUE).value()).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> Epoch.of(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epoch must be at least 1, but was -1");
  }

  @Test
  void epochsOrderByTheirValue() {
    assertThat(Epoch.of(2).compareTo(Epoch.of(3))).isNegative();
    assertThat(Epoch.of(3).compareTo(Epoch.of(2))).isPositive();
    assertThat(Epoch.of(3).compareTo(Epoch.of(3))).isZero();
    List<Epoch> epochs = new ArrayList<>(List.of(Epoch.of(5), Epoch.FIRST, Epoch.of(3)));
    epochs.sort(null);
    assertThat(epochs).containsExactly(Epoch.FIRST, Epoch.of(3), Epoch.of(5));
    assertThat(Epoch.of(2).isNewerThan(Epoch.of(3))).isFalse();
    assertThat(Epoch.of(7)).hasToString("epoch 7");
  }

  @Test
  void aJobIsKnownByItsLeasesIdAndEpoch() {
    Lease lease = new Lease(42, "w", Epoch.of(3), Instant.EPOCH);
    Job job = new Job(lease, "q", "{}", 2);
    assertThat(job.id()).isEqualTo(42);
    assertThat(job.epoch()).isEqualTo(Epoch.of(3));
  }

  @Test
  void statesAreStoredInLowerCaseAndReadInAnyCase() {
    assertThat(JobState.RUNNING.dbName()).isEqualTo("running");
    assertThat(JobState.FAILED.dbName()).isEqualTo("failed");
    assertThat(JobState.fromDbName("completed")).isEqualTo(JobState.COMPLETED);
    assertThat(JobState.fromDbName("Pending")).isEqualTo(JobState.PENDING);
    assertThatThrownBy(() -> JobState.fromDbName("done"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
