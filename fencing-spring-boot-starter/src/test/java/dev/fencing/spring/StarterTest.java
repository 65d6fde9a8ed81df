package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.FencedQueue;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.JobType;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.Cancellation;
import dev.fencing.runtime.JobContext;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A real Spring Boot application on a real PostgreSQL, wired by the starter alone. */
class StarterTest {

  /** Records the jobs it ran; returns their id. */
  static final class Recording implements QueueHandler<String, String> {
    final Set<Long> ran = ConcurrentHashMap.newKeySet();
    final Set<Boolean> onVirtualThreads = ConcurrentHashMap.newKeySet();

    @Override
    public JobType<String, String> type() {
      return JobType.raw("emails");
    }

    @Override
    public String handle(JobContext<String> job, Cancellation cancellation) {
      ran.add(job.id());
      onVirtualThreads.add(Thread.currentThread().isVirtual());
      return "{\"done\": " + job.id() + "}";
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class OneHandler {
    @Bean
    Recording recording() {
      return new Recording();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"update-in-place", "append-only"})
  void jobsEnqueuedThroughTheInjectedQueueRunThroughTheHandlerBean(String engine)
      throws SQLException {
    String schema = Apps.db().freshSchema("starter");
    try (ConfigurableApplicationContext app =
        Apps.start(OneHandler.class, schema, "fencing.engine=" + engine)) {
      FencedQueue queue = app.getBean(FencedQueue.class);
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        ids.add(queue.enqueue("emails", "{\"n\": " + i + "}"));
      }
      Apps.await(
          "all 20 jobs completed",
          Duration.ofSeconds(20),
          () -> Apps.jobs(queue, ids).stream().allMatch(j -> j.state() == JobState.COMPLETED));

      assertThat(app.getBean(Recording.class).ran).containsExactlyInAnyOrderElementsOf(ids);
      assertThat(app.getBean(Recording.class).onVirtualThreads)
          .containsExactly(dev.fencing.runtime.FencedWorkers.defaultVirtualThreads());
      assertThat(appendOnlyJobs(schema)).isEqualTo(engine.equals("append-only") ? 20 : 0);
      // the owner defaults to the host name and the process id
      String owner = app.getBean(ManagedWorkers.class).owner();
      assertThat(owner).endsWith("-" + ProcessHandle.current().pid()).doesNotStartWith("-");
      assertThat(app.getBean(ManagedWorkers.class).stats()).containsOnlyKeys("emails");
      for (JobSnapshot job : Apps.jobs(queue, ids)) {
        assertThat(job.result()).isEqualTo("{\"done\": " + job.id() + "}");
        assertThat(job.owner()).isEqualTo(owner);
      }
      MeterRegistry registry = app.getBean(MeterRegistry.class);
      assertThat(registry.find("fencing.enqueue").timers()).isNotEmpty();
      assertThat(registry.find("fencing.runtime.jobs.ended").tag("runtime", "emails").meters())
          .isNotEmpty();
      assertThat(registry.find("fencing.queue.depth").tag("queue", "emails").gauges()).isNotEmpty();

      Health health = app.getBean("fencingHealthIndicator", HealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).containsEntry("schema", schema);
      assertThat(health.getDetails().get("queues"))
          .isEqualTo(Map.of("emails", Map.of("pending", 0L, "running", 0L, "failed", 0L)));
      // what Actuator's health endpoint serves under /actuator/health/fencing
      HealthDescriptor served = app.getBean(HealthEndpoint.class).healthForPath("fencing");
      assertThat(served.getStatus()).isEqualTo(Status.UP);
    }
  }

  @Test
  void withoutFencingEngineTheApplicationFollowsTheSchemaAndTheOtherEngineIsRefusedAtStart() {
    String schema = Apps.db().freshSchema("starter");
    try (ConfigurableApplicationContext first =
        Apps.start(OneHandler.class, schema, "fencing.engine=append-only")) {
      assertThat(first.getBean(PostgresFencing.class).engine())
          .isEqualTo(PostgresFencing.Engine.APPEND_ONLY);
    }
    try (ConfigurableApplicationContext next = Apps.start(OneHandler.class, schema)) {
      assertThat(next.getBean(PostgresFencing.class).engine())
          .isEqualTo(PostgresFencing.Engine.APPEND_ONLY);
    }
    assertThatThrownBy(() -> Apps.start(OneHandler.class, schema, "fencing.engine=update-in-place"))
        .rootCause()
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("records engine APPEND_ONLY");
  }

  /** Counts the jobs in the append-only engine's table: where the chosen engine put them. */
  private static long appendOnlyJobs(String schema) throws SQLException {
    try (Connection c = Apps.db().dataSource().getConnection();
        ResultSet r =
            c.createStatement()
                .executeQuery("SELECT count(*) FROM " + schema + ".fencing_append_job")) {
      r.next();
      return r.getLong(1);
    }
  }

  @Test
  void theHealthIndicatorCanBeTurnedOff() {
    String schema = Apps.db().freshSchema("starter");
    try (ConfigurableApplicationContext app =
        Apps.start(OneHandler.class, schema, "management.health.fencing.enabled=false")) {
      assertThat(app.containsBean("fencingHealthIndicator")).isFalse();
      assertThat(app.getBean(ManagedWorkers.class).stats()).containsOnlyKeys("emails");
    }
  }

  @Test
  void aQueuesSettingsReachItsRuntime() throws InterruptedException {
    String schema = Apps.db().freshSchema("starter");
    try (ConfigurableApplicationContext app =
        Apps.start(
            SlowApp.class,
            schema,
            "test.pause=60s",
            "fencing.queues.slow.concurrency=3",
            "fencing.queues.slow.prefetch=0",
            "fencing.queues.slow.lease=5m",
            "fencing.drain-timeout=0s")) {
      FencedQueue queue = app.getBean(FencedQueue.class);
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        ids.add(queue.enqueue("slow", "{}"));
      }
      SlowApp.Slow slow = app.getBean(SlowApp.Slow.class);
      Apps.await("three jobs started", Duration.ofSeconds(10), () -> slow.started.size() == 3);
      Thread.sleep(300);
      List<JobSnapshot> running =
          Apps.jobs(queue, ids).stream().filter(j -> j.state() == JobState.RUNNING).toList();
      assertThat(running).hasSize(3);
      assertThat(running.getFirst().leaseExpiresAt())
          .isAfter(java.time.Instant.now().plus(Duration.ofMinutes(4)));
    }
  }

  @ParameterizedTest
  @CsvSource({
    "spring.threads.virtual.enabled=true, fencing.virtual-threads=, true",
    "spring.threads.virtual.enabled=true, fencing.virtual-threads=false, false",
    "spring.threads.virtual.enabled=false, fencing.virtual-threads=true, true",
  })
  void handlersRunOnVirtualThreadsWhenSpringsSettingOrOursSaysSo(
      String spring, String ours, boolean virtual) {
    String schema = Apps.db().freshSchema("starter");
    try (ConfigurableApplicationContext app = Apps.start(OneHandler.class, schema, spring, ours)) {
      Recording handler = app.getBean(Recording.class);
      app.getBean(FencedQueue.class).enqueue("emails", "{}");
      Apps.await("the job ran", Duration.ofSeconds(10), () -> !handler.ran.isEmpty());
      assertThat(handler.onVirtualThreads).containsExactly(virtual);
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "fencing.queues.emails.concurrency=0 | fencing.queues.emails.concurrency must be between 1 and 10000, but was 0",
        "fencing.queues.emails.lease=-1s | fencing.queues.emails.lease must be between PT0.001S and PT24H, but was PT-1S",
        "fencing.queues.emails.heartbeat=30s | fencing.queues.emails.heartbeat must be more than zero and less than the lease (PT30S), but was PT30S",
        "fencing.queues.emails.prefetch=-1 | fencing.queues.emails.prefetch must be between 0 and 10000, but was -1",
        "fencing.queues.emails.batch-size=0 | fencing.queues.emails.batch-size must be between 1 and 10000, but was 0",
        "fencing.schema=Jobs | fencing.schema must be a plain identifier ([a-z_][a-z0-9_]{0,62}), but was 'Jobs'",
        "fencing.drain-timeout=-1s | fencing.drain-timeout must be between PT0S and PT24H, but was PT-1S",
        "fencing.max-attempts=0 | fencing.max-attempts must be between 1 and 1000, but was 0",
        "fencing.maintenance.keep-finished=10s | fencing.maintenance.keep-finished must be between 1 min and 3650 days, but was PT10S",
        "fencing.health.timeout=0s | fencing.health.timeout must be between PT0.001S and PT1H, but was PT0S",
        "fencing.scheduler.poll-interval=5ms | fencing.scheduler.poll-interval must be between PT0.01S and PT1H, but was PT0.005S",
        "fencing.datasource.retry-interval=0s | fencing.datasource.retry-interval must be between PT0.001S and PT1M, but was PT0S",
        "fencing.datasource.primary-wait=-1s | fencing.datasource.primary-wait must be between PT0S and PT24H, but was PT-1S",
      })
  void aPropertyOutOfRangeStopsTheContextNamingItAndItsValue(String property, String message) {
    assertThatThrownBy(() -> Apps.start(OneHandler.class, "never_created", property))
        .rootCause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class TwoHandlersForOneQueue {
    @Bean
    Recording first() {
      return new Recording();
    }

    @Bean
    Recording second() {
      return new Recording();
    }
  }

  @Test
  void twoHandlersForOneQueueStopTheContextNamingBoth() {
    String schema = Apps.db().freshSchema("starter");
    assertThatThrownBy(() -> Apps.start(TwoHandlersForOneQueue.class, schema))
        .rootCause()
        .hasMessage(
            "queue 'emails' must have one QueueHandler bean, but had two: 'first' and 'second'");
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class OwnQueue {
    @Bean
    FencedQueue myQueue(PostgresFencing fencing) {
      return fencing.queue();
    }
  }

  @Test
  void theApplicationsOwnQueueBeanWins() {
    String schema = Apps.db().freshSchema("starter");
    try (ConfigurableApplicationContext app = Apps.start(OwnQueue.class, schema)) {
      assertThat(app.getBeansOfType(FencedQueue.class)).containsOnlyKeys("myQueue");
      assertThat(app.getBean(FencedQueue.class))
          .isSameAs(app.getBean(PostgresFencing.class).queue());
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class NoHandler {}

  @Test
  void aSchemaWithoutTablesIsDown() {
    String schema = Apps.db().freshSchema("starter");
    try (ConfigurableApplicationContext app =
        Apps.start(NoHandler.class, schema, "fencing.install=false")) {
      Health health = app.getBean("fencingHealthIndicator", HealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.DOWN);
      assertThat(String.valueOf(health.getDetails().get("error")))
          .contains("no fencing tables")
          .contains(schema);
    }
  }
}
