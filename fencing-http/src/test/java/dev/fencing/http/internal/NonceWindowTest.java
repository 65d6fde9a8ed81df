package dev.fencing.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.http.internal.NonceWindow.Verdict;
import org.junit.jupiter.api.Test;

class NonceWindowTest {

  @Test
  void aNonceIsFreshOnceAndReplayedUntilItExpires() {
    NonceWindow window = new NonceWindow(10);

    assertThat(window.use("n", 100, 0)).isEqualTo(Verdict.FRESH);
    assertThat(window.use("n", 100, 99)).isEqualTo(Verdict.REPLAYED);
    assertThat(window.use("n", 200, 100)).isEqualTo(Verdict.FRESH);
  }

  @Test
  void aFullWindowRefusesUntilASweepFindsExpiredNonces() {
    NonceWindow window = new NonceWindow(2);
    window.use("a", 500, 0);
    window.use("b", 5_000, 0);

    assertThat(window.use("c", 600, 100)).isEqualTo(Verdict.FULL);
    assertThat(window.use("c", 600, 999)).isEqualTo(Verdict.FULL);
    assertThat(window.use("c", 2_000, 1_000)).isEqualTo(Verdict.FRESH);
    assertThat(window.use("d", 2_000, 1_000)).isEqualTo(Verdict.FULL);
    assertThat(window.use("b", 6_000, 1_000)).isEqualTo(Verdict.REPLAYED);
  }
}
