package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.internal.Validate;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import org.junit.jupiter.api.Test;

class MaintenanceTest {

  @Test
  void runUntilDoneSumsRoundsAndStopsAtTheFirstThatFoundNothingMore() {
    ArrayDeque<Maintenance.Report> rounds =
        new ArrayDeque<>(
            List.of(
                new Maintenance.Report(10, 4, 3, true),
                new Maintenance.Report(10, 0, 1, true),
                new Maintenance.Report(2, 2, 0, false),
                new Maintenance.Report(99, 0, 0, false)));
    Maintenance m = rounds::removeFirst;
    assertThat(m.runUntilDone()).isEqualTo(new Maintenance.Report(22, 6, 4, false));
    assertThat(rounds).hasSize(1);
  }

  @Test
  void roundsNeedNoPaceOfTheirOwnUnlessTheMaintenanceSaysSo() {
    Maintenance m = () -> Maintenance.Report.NOTHING;
    assertThat(m.upkeepEvery()).isNotNull().isEmpty();
  }

  @Test
  void runUntilDoneStopsWhenTheThreadIsInterrupted() {
    int[] calls = {0};
    Maintenance m =
        () -> {
          calls[0]++;
          Thread.currentThread().interrupt();
          return new Maintenance.Report(1, 0, 0, true);
        };
    try {
      assertThat(m.runUntilDone()).isEqualTo(new Maintenance.Report(1, 0, 0, true));
      assertThat(calls[0]).isEqualTo(1);
    } finally {
      assertThat(Thread.interrupted()).isTrue();
    }
  }

  @Test
  void aReportRefusesNegativeCountsAndMoreArchivedThanRemoved() {
    assertThat(Maintenance.Report.NOTHING).isEqualTo(new Maintenance.Report(0, 0, 0, false));
    assertThatThrownBy(() -> new Maintenance.Report(-1, 0, 0, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "counts must not be negative, but were jobsRemoved=-1, jobsArchived=0,"
                + " messagesRemoved=0");
    assertThatThrownBy(() -> new Maintenance.Report(0, -1, 0, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jobsArchived=-1");
    assertThatThrownBy(() -> new Maintenance.Report(0, 0, -1, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("messagesRemoved=-1");
    assertThatThrownBy(() -> new Maintenance.Report(1, 2, 0, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("jobsArchived must not exceed jobsRemoved (1), but was 2");
    assertThat(new Maintenance.Report(2, 2, 0, true).jobsArchived()).isEqualTo(2);
  }

  @Test
  void plusKeepsTheLaterRoundsMoreLeft() {
    Maintenance.Report a = new Maintenance.Report(1, 1, 1, true);
    assertThat(a.plus(Maintenance.Report.NOTHING))
        .isEqualTo(new Maintenance.Report(1, 1, 1, false));
    assertThat(Maintenance.Report.NOTHING.plus(a)).isEqualTo(a);
  }

  @Test
  void keepFinishedIsBetweenAMinuteAndTenYears() {
    assertThat(Validate.keepFinished("keepFinished", Duration.ofMinutes(1)))
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(Validate.keepFinished("keepFinished", Duration.ofDays(3650)))
        .isEqualTo(Duration.ofDays(3650));
    assertThatThrownBy(() -> Validate.keepFinished("keepFinished", Duration.ofSeconds(59)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keepFinished must be between 1 min and 3650 days, but was PT59S");
    assertThatThrownBy(() -> Validate.keepFinished("olderThan", Duration.ofDays(3651)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("olderThan must be between");
    assertThatThrownBy(() -> Validate.keepFinished("keepFinished", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("but was null");
  }

  @Test
  void aRemovedJobRefusesTheWriteAndNamesNoCurrentEpoch() {
    FencedOutcome.Removed removed = new FencedOutcome.Removed("42", Epoch.of(3));
    assertThat(removed.isAccepted()).isFalse();
    FencedOffException e = new FencedOffException(removed);
    assertThat(e.getMessage())
        .isEqualTo(
            "fenced off: 42 at epoch 3: the job finished and was removed after its retention time");
    assertThat(e.currentEpoch()).isEmpty();
    assertThatThrownBy(() -> FencedOffException.requireAccepted(removed))
        .isInstanceOf(FencedOffException.class);
    assertThatThrownBy(() -> new FencedOutcome.Removed(null, Epoch.FIRST))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("key");
    assertThatThrownBy(() -> new FencedOutcome.Removed("1", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("epoch");
  }
}
