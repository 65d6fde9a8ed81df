package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** fencing.queue-defaults.* applies to every queue, and a queue's own setting wins. */
class QueueDefaultsTest {

  @Test
  void aQueueTakesEachSettingItLeavesUnsetFromTheDefaults() {
    FencingProperties p =
        bind(
            Map.of(
                "fencing.queue-defaults.lease", "1m",
                "fencing.queue-defaults.concurrency", "2",
                "fencing.queues.emails.concurrency", "8"));

    assertThat(p.queue("emails").concurrency()).isEqualTo(8);
    assertThat(p.queue("emails").lease()).isEqualTo(Duration.ofMinutes(1));
    assertThat(p.queue("reports").concurrency()).isEqualTo(2); // a queue with no settings at all
    assertThat(p.queue("reports").lease()).isEqualTo(Duration.ofMinutes(1));
    assertThat(p.queue("reports").heartbeat()).isNull(); // the runtime's default
    assertThat(p.queues()).containsOnlyKeys("emails");
  }

  @Test
  void aBadDefaultIsNamedAsTheDefault() {
    assertThatThrownBy(() -> bind(Map.of("fencing.queue-defaults.concurrency", "0")))
        .isInstanceOf(BindException.class)
        .rootCause()
        .hasMessage("fencing.queue-defaults.concurrency must be between 1 and 10000, but was 0");
  }

  @Test
  void aQueueSettingThatDisagreesWithADefaultIsNamedAsTheQueues() {
    assertThatThrownBy(
            () ->
                bind(
                    Map.of(
                        "fencing.queue-defaults.lease", "10s",
                        "fencing.queues.emails.heartbeat", "20s")))
        .isInstanceOf(BindException.class)
        .rootCause()
        .hasMessage(
            "fencing.queues.emails.heartbeat must be more than zero and less than the lease"
                + " (PT10S), but was PT20S");
  }

  private static FencingProperties bind(Map<String, String> properties) {
    return new Binder(new MapConfigurationPropertySource(properties))
        .bindOrCreate("fencing", FencingProperties.class);
  }
}
