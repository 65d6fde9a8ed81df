package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class QueueDepthTest {

  @Test
  void unfinishedIsPendingPlusRunning() {
    assertThat(new QueueDepth(2, 3, 7).unfinished()).isEqualTo(5);
    assertThat(new QueueDepth(0, 0, 0).unfinished()).isZero();
  }

  @Test
  void aNegativeCountIsRefusedByName() {
    assertThatThrownBy(() -> new QueueDepth(-1, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("pending must be at least 0, but was -1");
    assertThatThrownBy(() -> new QueueDepth(0, -2, 0))
        .hasMessage("running must be at least 0, but was -2");
    assertThatThrownBy(() -> new QueueDepth(0, 0, -3))
        .hasMessage("failed must be at least 0, but was -3");
  }
}
