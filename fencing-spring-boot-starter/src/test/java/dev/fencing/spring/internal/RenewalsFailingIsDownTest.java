package dev.fencing.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.spring.Apps;
import dev.fencing.spring.SlowApp;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * A runtime whose latest renewal failed makes the indicator DOWN even while the database answers
 * (the runtime's own {@code health()} says so), and UP again once a statement of that runtime
 * succeeds.
 */
class RenewalsFailingIsDownTest {

  /** {@link SlowApp} on a queue whose renewals and claims fail while {@code failing} is set. */
  @Configuration(proxyBeanMethods = false)
  @Import(SlowApp.class)
  static class FailingApp {
    @Bean
    AtomicBoolean failing() {
      return new AtomicBoolean();
    }

    @Bean
    FencedQueue failingQueue(PostgresFencing fencing, AtomicBoolean failing) {
      FencedQueue real = fencing.queue();
      return (FencedQueue)
          Proxy.newProxyInstance(
              FencedQueue.class.getClassLoader(),
              new Class<?>[] {FencedQueue.class},
              (proxy, method, args) -> {
                String name = method.getName();
                if (failing.get() && (name.startsWith("renew") || name.startsWith("claim"))) {
                  throw new IllegalStateException(name + " fails in this test");
                }
                try {
                  return method.invoke(real, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }
  }

  @Test
  void aFailedRenewalIsDownUntilTheRuntimesNextStatementSucceeds() {
    String schema = Apps.db().freshSchema("renewals");
    try (ConfigurableApplicationContext app =
        Apps.start(
            FailingApp.class,
            schema,
            "test.pause=60s",
            "fencing.drain-timeout=0s",
            "fencing.queues.slow.lease=6s")) {
      HealthIndicator indicator = app.getBean("fencingHealthIndicator", HealthIndicator.class);
      SlowApp.Slow slow = app.getBean(SlowApp.Slow.class);
      long id = app.getBean(FencedQueue.class).enqueue("slow", "{}");
      Apps.await("the job started", Duration.ofSeconds(10), () -> slow.started.contains(id));
      assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

      // the heartbeat renews the job within 2 s; its renewals and the claimer's polls now fail
      app.getBean(AtomicBoolean.class).set(true);
      Apps.await(
          "DOWN with the renewals and claims failing",
          Duration.ofSeconds(10),
          () -> {
            Health h = indicator.health();
            return h.getStatus().equals(Status.DOWN)
                && List.of("slow").equals(h.getDetails().get("renewalsFailing"))
                && List.of("slow").equals(h.getDetails().get("claimsFailing"));
          });
      Health down = indicator.health();
      assertThat(down.getStatus()).isEqualTo(Status.DOWN);
      assertThat(down.getDetails()).containsKey("queues").doesNotContainKey("error");
      assertThat(runtime(down)).containsEntry("renewalsFailing", true);
      assertThat(String.valueOf(runtime(down).get("lastFailure"))).contains("fails in this test");

      // the claimer polls at least every second: a statement that succeeds
      app.getBean(AtomicBoolean.class).set(false);
      Apps.await(
          "UP again",
          Duration.ofSeconds(10),
          () -> indicator.health().getStatus().equals(Status.UP));
      Health up = indicator.health();
      assertThat(runtime(up)).containsEntry("renewalsFailing", false);
      assertThat(up.getDetails()).doesNotContainKeys("renewalsFailing", "claimsFailing");
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> runtime(Health health) {
    Map<String, Object> runtimes = (Map<String, Object>) health.getDetails().get("runtimes");
    return (Map<String, Object>) runtimes.get("slow");
  }
}
