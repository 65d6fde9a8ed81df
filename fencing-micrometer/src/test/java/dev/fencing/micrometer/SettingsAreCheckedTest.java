package dev.fencing.micrometer;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Each setting is checked, and the message names it and the value. */
class SettingsAreCheckedTest {

  private final FencingMetrics.Builder builder = FencingMetrics.builder(new SimpleMeterRegistry());

  @Test
  void theRefreshIntervalIsBetweenOneSecondAndOneHour() {
    assertThatThrownBy(() -> builder.refreshInterval(Duration.ofSeconds(-5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("refreshInterval must be between PT1S and PT1H, but was PT-5S");
    assertThatThrownBy(() -> builder.refreshInterval(Duration.ofMillis(999)))
        .hasMessageContaining("PT0.999S");
    assertThatThrownBy(() -> builder.refreshInterval(Duration.ofHours(1).plusMillis(1)))
        .hasMessageContaining("PT1H0.001S");
    builder.refreshInterval(Duration.ofSeconds(1)).refreshInterval(Duration.ofHours(1));
  }

  @Test
  void aWatchedQueueIsAPlainIdentifier() {
    assertThatThrownBy(() -> builder.watchDepth("ok", "Not Ok"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queues[1]")
        .hasMessageContaining("Not Ok");
  }

  @Test
  void commonTagsComeInPairsAndMayNotUseTheMetersOwnKeys() {
    assertThatThrownBy(() -> builder.tags("service"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keyValues must be key and value pairs, but had 1 strings");
    assertThatThrownBy(() -> builder.tags("queue", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'queue'");
  }

  @Test
  void aRuntimesNameIsNotBlank() {
    FencingMetrics metrics = builder.build();
    assertThatThrownBy(() -> metrics.runtime(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must be non-blank and at most 200 characters, but was ' '");
    assertThatThrownBy(() -> metrics.runtime("x".repeat(201)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
