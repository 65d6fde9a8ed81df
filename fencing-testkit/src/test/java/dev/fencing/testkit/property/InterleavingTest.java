package dev.fencing.testkit.property;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class InterleavingTest {

  @Test
  void aStepNamingAWorkerTheInterleavingDoesNotHaveIsRefusedWithWhere() {
    assertThatThrownBy(
            () -> new Interleaving(2, 1, List.of(new Step.Claim(0, true), new Step.Complete(5, 0))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "steps[1] (w5 completes under lease #0) names worker w5, but the interleaving has workers"
                + " w0 to w1");
  }

  @Test
  void countsOutOfRangeAreRefusedByName() {
    assertThatThrownBy(() -> new Interleaving(0, 1, List.of()))
        .hasMessage("workers must be between 1 and 8, but was 0");
    assertThatThrownBy(() -> new Interleaving(2, 0, List.of()))
        .hasMessage("jobs must be between 1 and 100, but was 0");
    assertThatThrownBy(() -> new Interleavings(3, 2, 1, 1, 5))
        .hasMessage("bounds must be ordered, but were workers 3..2, jobs 1..1");
    assertThatThrownBy(() -> new Interleavings(2, 4, 1, 3, 0))
        .hasMessage("maxSteps must be between 1 and 1000, but was 0");
    assertThatThrownBy(() -> new Interleavings(2, 9, 1, 3, 5))
        .hasMessage("workers must be between 1 and 8, but was 9");
  }

  @Test
  void generatedInterleavingsStayWithinTheirBounds() {
    Interleavings.defaults()
        .sample(42, 500)
        .forEach(
            s -> {
              assertThat(s.workers()).isBetween(2, 4);
              assertThat(s.jobs()).isBetween(1, 3);
              assertThat(s.steps()).hasSizeBetween(1, 30);
            });
  }

  @Test
  void underARunningLimitThereAreMoreJobsThanSlots() {
    for (int max = 1; max <= 4; max++) {
      int slots = max;
      Interleavings.underLimit(max)
          .sample(42, 200)
          .forEach(
              s -> {
                assertThat(s.workers()).isBetween(2, 4);
                assertThat(s.jobs()).isBetween(slots + 1, slots + 3);
              });
    }
    assertThatThrownBy(() -> Interleavings.underLimit(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxRunning must be between 1 and 4, but was 0");
    assertThatThrownBy(() -> Interleavings.underLimit(5))
        .hasMessage("maxRunning must be between 1 and 4, but was 5");
  }

  @Test
  void theSameSeedDrawsTheSameInterleavingsAndAnotherSeedOthers() {
    List<Interleaving> first = Interleavings.defaults().sample(7, 50);
    assertThat(Interleavings.defaults().sample(7, 50)).isEqualTo(first);
    assertThat(Interleavings.defaults().sample(8, 50)).isNotEqualTo(first);
  }

  @Test
  void drawnInterleavingsUseTheWholeRangeOfLengthsAndWorkers() {
    List<Interleaving> drawn = Interleavings.defaults().sample(3, 500);
    assertThat(drawn).extracting(s -> s.steps().size()).contains(1, 30);
    assertThat(drawn).extracting(Interleaving::workers).contains(2, 3, 4);
    assertThat(drawn).extracting(Interleaving::jobs).contains(1, 2, 3);
    // the same owner reclaiming its own job needs one worker to claim twice in an interleaving
    assertThat(drawn)
        .filteredOn(
            s ->
                s.steps().stream().filter(st -> st instanceof Step.Claim && st.actor() == 0).count()
                    >= 2)
        .hasSizeGreaterThan(100);
  }

  @Test
  void anInterleavingReadsAsATimeline() {
    Interleaving interleaving =
        new Interleaving(
            2, 1, List.of(new Step.Claim(0, true), new Step.Stall(0), new Step.LeasesRunOut()));
    assertThat(interleaving.toString())
        .isEqualTo(
            "2 workers, 1 jobs:\n"
                + "  1. w0 claims (short lease)\n"
                + "  2. w0 stalls (SIGSTOP)\n"
                + "  3. time passes: every short lease runs out");
  }
}
