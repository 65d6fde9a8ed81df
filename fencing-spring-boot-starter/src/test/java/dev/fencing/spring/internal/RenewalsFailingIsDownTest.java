package dev.fencing.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.FencedQueue;
import dev.fencing.spring.Apps;
import dev.fencing.spring.SlowApp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A runtime whose latest renewal failed makes the indicator DOWN even while the database answers,
 * and UP again once a statement of that runtime succeeds.
 */
class RenewalsFailingIsDownTest {

  @Test
  void aFailedRenewalIsDownUntilTheRuntimesNextStatementSucceeds() {
    String schema = Apps.db().freshSchema("renewals");
    try (ConfigurableApplicationContext app =
        Apps.start(SlowApp.class, schema, "test.pause=60s", "fencing.drain-timeout=0s")) {
      HealthIndicator indicator = app.getBean("fencingHealthIndicator", HealthIndicator.class);
      assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

      // a renewal statement that fails, through the very watch the runtime's queue goes through
      RenewalWatch watch = app.getBean(Workers.class).running().get("slow").watch();
      FencedQueue watched = watch.watch(app.getBean(FencedQueue.class));
      assertThatThrownBy(() -> watched.renewAll(List.of(), Duration.ofSeconds(-1)))
          .isInstanceOf(IllegalArgumentException.class);

      Health down = indicator.health();
      assertThat(down.getStatus()).isEqualTo(Status.DOWN);
      assertThat(down.getDetails()).containsEntry("renewalsFailing", List.of("slow"));
      assertThat(down.getDetails()).containsKey("queues").doesNotContainKey("error");
      assertThat(renewals(down)).containsEntry("failing", true).containsEntry("failures", 1L);

      // the claimer polls the queue within fallbackPoll (1 s): a statement that succeeds
      Apps.await(
          "UP again",
          Duration.ofSeconds(10),
          () -> indicator.health().getStatus().equals(Status.UP));
      assertThat(renewals(indicator.health())).containsEntry("failing", false);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> renewals(Health health) {
    Map<String, Object> runtimes = (Map<String, Object>) health.getDetails().get("runtimes");
    return (Map<String, Object>) ((Map<String, Object>) runtimes.get("slow")).get("renewals");
  }
}
