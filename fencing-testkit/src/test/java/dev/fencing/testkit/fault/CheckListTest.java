package dev.fencing.testkit.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class CheckListTest {

  @Test
  void aCheckPassesUntilAViolationIsAddedAndTheSummaryShowsTheFirstOnes() {
    CheckList checks = new CheckList(List.of("one token, one owner", "no stale accept"));
    assertThat(checks.passed()).isTrue();

    checks.add("no stale accept", "job 1@2");
    checks.add("no stale accept", "job 3@4");
    checks.add("no stale accept", "job 5@6");

    assertThat(checks.passed()).isFalse();
    assertThat(checks.violations("one token, one owner")).isEmpty();
    assertThat(checks.violations()).containsOnlyKeys("one token, one owner", "no stale accept");
    assertThat(checks.summary(2))
        .isEqualTo(
            "  PASS  one token, one owner\n"
                + "  FAIL  no stale accept (3 violations)\n"
                + "          job 1@2\n"
                + "          job 3@4\n");
  }

  @Test
  void aCheckNotInTheListIsRefusedByName() {
    CheckList checks = new CheckList(List.of("ended"));

    assertThatThrownBy(() -> checks.add("endd", "job 1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("check \"endd\" is not one of [ended]");
    assertThatThrownBy(() -> new CheckList(List.of("a", "a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("checks names \"a\" twice");
    assertThatThrownBy(() -> new CheckList(List.of())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theViolationsCannotBeChangedFromOutside() {
    CheckList checks = new CheckList(List.of("ended"));
    checks.add("ended", "job 1");

    assertThatThrownBy(() -> checks.violations("ended").clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> checks.violations().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
