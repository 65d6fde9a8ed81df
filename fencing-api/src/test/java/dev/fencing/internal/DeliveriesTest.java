package dev.fencing.internal;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import org.junit.jupiter.api.Test;

class DeliveriesTest {

  @Test
  void aWellFormedDeliveryPasses() {
    assertThatCode(() -> Deliveries.check("job-1", Epoch.FIRST, "{}")).doesNotThrowAnyException();
  }

  @Test
  void theFirstBadParameterIsNamedInOrderKeyEpochPayload() {
    assertThatThrownBy(() -> Deliveries.check(" ", null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("key ");
    assertThatThrownBy(() -> Deliveries.check("k", null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epoch must not be null, but was null");
    assertThatThrownBy(() -> Deliveries.check("k", Epoch.FIRST, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("payload must be JSON, but was null");
  }

  @Test
  void aFenceIsCheckedForItsKeyThenItsEpoch() {
    assertThatCode(() -> Deliveries.fence("job-1", Epoch.FIRST)).doesNotThrowAnyException();
    assertThatThrownBy(() -> Deliveries.fence(" ", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("key ");
    assertThatThrownBy(() -> Deliveries.fence("k", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epoch must not be null, but was null");
  }
}
