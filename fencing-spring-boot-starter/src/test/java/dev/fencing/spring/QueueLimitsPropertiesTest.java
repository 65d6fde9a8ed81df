package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.FencedQueue;
import dev.fencing.QueueLimits;
import dev.fencing.testkit.memory.InMemoryQueue;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * fencing.queues.(name).limits: the store's limits rule unless apply is true, which sets them at
 * start. {@link #theLimitsAreAppliedAtStartOnlyWhenApplyIsTrue} runs on the PostgreSQL queue's
 * limits; {@link #theLimitsAreAppliedToTheApplicationsOwnQueueBean} on an application's own queue
 * bean.
 */
class QueueLimitsPropertiesTest {

  @Test
  void theLimitsAreAppliedAtStartOnlyWhenApplyIsTrue() {
    String schema = Apps.db().freshSchema("limits");
    try (ConfigurableApplicationContext app = Apps.start(StarterTest.NoHandler.class, schema)) {
      app.getBean(FencedQueue.class).setLimits("exports", QueueLimits.maxRunning(7));
    }
    try (ConfigurableApplicationContext app =
        Apps.start(
            StarterTest.NoHandler.class, schema, "fencing.queues.exports.limits.max-running=2")) {
      assertThat(app.getBean(FencedQueue.class).limits("exports"))
          .as("not applied: the store's limits rule")
          .isEqualTo(QueueLimits.maxRunning(7));
    }
    try (ConfigurableApplicationContext app =
        Apps.start(
            StarterTest.NoHandler.class,
            schema,
            "fencing.queues.exports.limits.max-running=2",
            "fencing.queues.exports.limits.apply=true")) {
      assertThat(app.getBean(FencedQueue.class).limits("exports"))
          .isEqualTo(QueueLimits.maxRunning(2));
    }
    try (ConfigurableApplicationContext app =
        Apps.start(
            StarterTest.NoHandler.class, schema, "fencing.queues.exports.limits.apply=true")) {
      assertThat(app.getBean(FencedQueue.class).limits("exports"))
          .as("applied without max-running: no running limit")
          .isEqualTo(QueueLimits.NONE);
    }
    try (ConfigurableApplicationContext app =
        Apps.start(
            StarterTest.NoHandler.class,
            schema,
            "fencing.queues.exports.limits.rate=100/1s",
            "fencing.queues.exports.limits.group-max-running=1",
            "fencing.queues.exports.limits.group-rate=10/1m",
            "fencing.queues.exports.limits.fifo=true",
            "fencing.queues.exports.limits.priority-aging=30s",
            "fencing.queues.exports.limits.apply=true")) {
      assertThat(app.getBean(FencedQueue.class).limits("exports"))
          .isEqualTo(
              QueueLimits.NONE
                  .withRate(100, java.time.Duration.ofSeconds(1))
                  .withMaxRunningPerGroup(1)
                  .withRatePerGroup(10, java.time.Duration.ofMinutes(1))
                  .withFifoPerGroup()
                  .withPriorityAging(java.time.Duration.ofSeconds(30)));
    }
  }

  /** An application with a queue of its own, which the starter's queue backs off for. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class OwnQueue {
    @Bean
    FencedQueue fencedQueue() {
      InMemoryQueue queue = InMemoryQueue.builder().build();
      queue.setLimits("exports", QueueLimits.maxRunning(7));
      queue.setLimits("reports", QueueLimits.maxRunning(7));
      return queue;
    }
  }

  @Test
  void theLimitsAreAppliedToTheApplicationsOwnQueueBean() {
    String schema = Apps.db().freshSchema("limits");
    try (ConfigurableApplicationContext app =
        Apps.start(
            OwnQueue.class,
            schema,
            "fencing.queues.exports.limits.max-running=2",
            "fencing.queues.exports.limits.apply=true",
            "fencing.queues.reports.limits.max-running=2")) {
      FencedQueue queue = app.getBean(FencedQueue.class);
      assertThat(queue).isInstanceOf(InMemoryQueue.class);
      assertThat(queue.limits("exports")).isEqualTo(QueueLimits.maxRunning(2));
      assertThat(queue.limits("reports")).as("not applied").isEqualTo(QueueLimits.maxRunning(7));
    }
  }

  @Test
  void theLimitsBindPerQueue() {
    FencingProperties p =
        bind(
            Map.of(
                "fencing.queues.exports.limits.max-running", "5",
                "fencing.queues.exports.limits.apply", "true",
                "fencing.queues.emails.concurrency", "2"));

    FencingProperties.Limits limits = p.queue("exports").limits();
    assertThat(limits).isNotNull();
    assertThat(limits.apply()).isTrue();
    assertThat(limits.queueLimits()).isEqualTo(QueueLimits.maxRunning(5));
    assertThat(p.queue("emails").limits()).isNull();
    assertThat(p.queueDefaults().limits()).isNull();
    assertThat(bind(Map.of("fencing.queues.exports.limits.max-running", "5")).queue("exports"))
        .extracting(q -> q.limits().apply())
        .isEqualTo(false);
  }

  @Test
  void aBadLimitIsNamedAsTheQueuesProperty() {
    assertThatThrownBy(() -> bind(Map.of("fencing.queues.exports.limits.max-running", "0")))
        .isInstanceOf(BindException.class)
        .rootCause()
        .hasMessage(
            "fencing.queues.exports.limits.max-running must be between 1 and 1000000, but was 0");
    assertThatThrownBy(() -> bind(Map.of("fencing.queues.exports.limits.group-max-running", "0")))
        .isInstanceOf(BindException.class)
        .rootCause()
        .hasMessage(
            "fencing.queues.exports.limits.group-max-running must be between 1 and 1000000, but"
                + " was 0");
    assertThatThrownBy(() -> bind(Map.of("fencing.queues.exports.limits.group-rate", "10")))
        .isInstanceOf(BindException.class)
        .rootCause()
        .hasMessageStartingWith(
            "fencing.queues.exports.limits.group-rate: rate must be written starts/window");
    assertThatThrownBy(() -> bind(Map.of("fencing.queues.exports.limits.rate", "0/1s")))
        .isInstanceOf(BindException.class)
        .rootCause()
        .hasMessage(
            "fencing.queues.exports.limits.rate: starts must be between 1 and 1000000, but was 0");
    assertThatThrownBy(() -> bind(Map.of("fencing.queue-defaults.limits.max-running", "3")))
        .isInstanceOf(BindException.class)
        .rootCause()
        .hasMessageStartingWith("fencing.queue-defaults.limits is not a setting");
  }

  private static FencingProperties bind(Map<String, String> properties) {
    return new Binder(new MapConfigurationPropertySource(properties))
        .bindOrCreate("fencing", FencingProperties.class);
  }
}
