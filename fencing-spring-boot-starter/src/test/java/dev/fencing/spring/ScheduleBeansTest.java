package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.JobType;
import dev.fencing.runtime.Cancellation;
import dev.fencing.runtime.JobContext;
import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Schedule;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.DefaultResourceLoader;

/** Schedule beans in a real Spring Boot application on a real PostgreSQL. */
class ScheduleBeansTest {

  /** Runs the scheduled jobs of queue {@code ticks}, noting their keys. */
  static final class Ticks implements QueueHandler<String, String> {
    final Set<String> ran = ConcurrentHashMap.newKeySet();

    @Override
    public JobType<String, String> type() {
      return JobType.raw("ticks");
    }

    @Override
    public String handle(JobContext<String> job, Cancellation cancellation) {
      ran.add(job.payload());
      return "{}";
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class EverySecond {
    @Bean
    Schedule tick() {
      return Schedule.builder("tick").every(Duration.ofSeconds(1)).queue("ticks").build();
    }

    @Bean
    Ticks ticks() {
      return new Ticks();
    }
  }

  @Test
  void aScheduleBeanEnqueuesOneJobPerSlotThatAHandlerBeanRunsUntilTheContextStops()
      throws Exception {
    String schema = Apps.db().freshSchema("schedule");
    try (ConfigurableApplicationContext app =
        Apps.start(EverySecond.class, schema, "fencing.owner=app-one")) {
      Ticks ticks = app.getBean(Ticks.class);
      Apps.await("three slots ran", Duration.ofSeconds(10), () -> ticks.ran.size() >= 3);
      assertThat(ticks.ran).allMatch(payload -> payload.contains("\"schedule\": \"tick\""));
      FencedScheduler scheduler = app.getBean(FencedScheduler.class);
      assertThat(scheduler.name()).isEqualTo("app-one");

      MeterRegistry registry = app.getBean(MeterRegistry.class);
      // tagged with a fixed name, not the owner (MeterTagsTest)
      assertThat(
              registry
                  .get("fencing.schedule.slots")
                  .tag("scheduler", "default")
                  .tag("outcome", "enqueued")
                  .functionCounter()
                  .count())
          .isGreaterThanOrEqualTo(3);
      Health health = app.getBean("fencingHealthIndicator", HealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails().get("scheduler"))
          .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
          .containsEntry("name", "app-one")
          .containsEntry("schedules", List.of("tick"))
          .containsEntry("failures", 0L)
          .containsKey("lastRound");

      // the context's stop (the first step of its close) ends the scheduler's thread
      app.stop();
      List<String> atStop = keys(schema);
      assertThat(atStop)
          .allMatch(k -> k.startsWith("schedule:tick@"))
          .hasSizeGreaterThanOrEqualTo(3)
          .hasSize((int) scheduler.stats().enqueued());
      assertConsecutiveSeconds(atStop);
      Thread.sleep(1_500);
      assertThat(keys(schema)).as("no slot enqueued after the stop").isEqualTo(atStop);
    }
  }

  @Test
  void twoApplicationsOnOneDatabaseEnqueueEachSlotOnce() throws Exception {
    String schema = Apps.db().freshSchema("schedule");
    long enqueued = 0;
    try (ConfigurableApplicationContext one =
            Apps.start(EverySecond.class, schema, "fencing.owner=one");
        ConfigurableApplicationContext two =
            Apps.start(EverySecond.class, schema, "fencing.owner=two")) {
      Apps.await("four slots enqueued", Duration.ofSeconds(10), () -> keys(schema).size() >= 4);
      one.stop();
      two.stop();
      for (ConfigurableApplicationContext app : List.of(one, two)) {
        enqueued += app.getBean(FencedScheduler.class).stats().enqueued();
      }
    }
    List<String> keys = keys(schema);
    // what each scheduler believes it wrote adds up to the jobs there are: no slot written twice
    assertThat(keys).hasSize((int) enqueued).doesNotHaveDuplicates();
    assertConsecutiveSeconds(keys);
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class OneNameTwice {
    @Bean
    Schedule first() {
      return Schedule.builder("tick").every(Duration.ofSeconds(1)).queue("ticks").build();
    }

    @Bean
    Schedule second() {
      return Schedule.builder("tick").every(Duration.ofMinutes(1)).queue("ticks").build();
    }
  }

  @Test
  void twoScheduleBeansWithOneNameStopTheContextNamingIt() {
    String schema = Apps.db().freshSchema("schedule");
    assertThatThrownBy(() -> Apps.start(OneNameTwice.class, schema))
        .rootCause()
        .hasMessage("schedules must have distinct names, but tick was given twice");
  }

  @Test
  void withoutFencingScheduleOnTheClassPathTheStarterRunsNoScheduler() {
    String schema = Apps.db().freshSchema("schedule");
    ClassLoader hiding = new Hiding(getClass().getClassLoader(), "dev.fencing.schedule.");
    List<String> props = new ArrayList<>(dataSource());
    props.add("fencing.schema=" + schema);
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(EverySecond.class)
            .resourceLoader(new DefaultResourceLoader(hiding))
            .web(WebApplicationType.NONE)
            .properties(props.toArray(String[]::new))
            .run()) {
      // a Schedule bean, but no fencing-schedule: no scheduler, and the rest runs as before
      assertThat(app.containsBean("fencingSchedules")).isFalse();
      assertThat(app.getBeanNamesForType(FencedScheduler.class)).isEmpty();
      assertThat(app.getBean(ManagedWorkers.class)).isNotNull();
      assertThat(app.getBean("fencingHealthIndicator", HealthIndicator.class).health().getStatus())
          .isEqualTo(Status.UP);
    }
  }

  static List<String> dataSource() {
    var db = Apps.db();
    return Apps.dataSource(db.jdbcUrl(), db.user(), db.password());
  }

  /** A class loader that says the classes under {@code prefix} are absent. */
  static final class Hiding extends ClassLoader {
    private final String prefix;

    Hiding(ClassLoader parent, String prefix) {
      super(parent);
      this.prefix = prefix;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (name.startsWith(prefix)) {
        throw new ClassNotFoundException(name);
      }
      return super.loadClass(name, resolve);
    }
  }

  /** The slots' keys in the job table of the schema's engine, oldest first. */
  private static List<String> keys(String schema) {
    List<String> keys = new ArrayList<>();
    try (Connection c = Apps.db().dataSource().getConnection();
        ResultSet r =
            c.createStatement()
                .executeQuery(
                    // both engines' job tables are in every schema; one of them holds the jobs
                    "SELECT idempotency_key FROM "
                        + schema
                        + ".fencing_job WHERE queue = 'ticks' UNION ALL SELECT idempotency_key FROM "
                        + schema
                        + ".fencing_append_job WHERE queue = 'ticks' ORDER BY idempotency_key")) {
      while (r.next()) {
        keys.add(r.getString(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return keys;
  }

  /** Fails unless the keys' slots are one second apart each: none missed, none twice. */
  private static void assertConsecutiveSeconds(List<String> keys) {
    List<Instant> slots =
        keys.stream().map(k -> Instant.parse(k.substring(k.indexOf('@') + 1))).toList();
    for (int i = 1; i < slots.size(); i++) {
      assertThat(Duration.between(slots.get(i - 1), slots.get(i)))
          .as("slots %s", slots)
          .isEqualTo(Duration.ofSeconds(1));
    }
  }
}
