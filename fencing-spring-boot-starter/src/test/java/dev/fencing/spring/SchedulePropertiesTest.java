package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Missed;
import dev.fencing.schedule.Schedule;
import dev.fencing.schedule.Trigger;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.DefaultResourceLoader;

/** Schedules from {@code fencing.schedules.*}, beside the Schedule beans. */
class SchedulePropertiesTest {

  /** A handler of queue {@code ticks}, and no Schedule bean. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class TicksOnly {
    @Bean
    ScheduleBeansTest.Ticks ticks() {
      return new ScheduleBeansTest.Ticks();
    }
  }

  @Test
  void aScheduleFromPropertiesEnqueuesOneJobPerSlotWithoutAScheduleBean() {
    String schema = Apps.db().freshSchema("schedprops");
    try (ConfigurableApplicationContext app =
        Apps.start(
            TicksOnly.class,
            schema,
            "fencing.schedules.tick.queue=ticks",
            "fencing.schedules.tick.every=1s",
            "fencing.schedules.tick.payload={\"from\": \"properties\"}",
            "fencing.schedules.tick.missed=run-all:3",
            "fencing.schedules.tick.grace=10s",
            "fencing.schedules.tick.revision=2",
            "fencing.schedules.nightly.queue=reports",
            "fencing.schedules.nightly.cron=0 3 * * *",
            "fencing.schedules.nightly.zone=Europe/Berlin",
            "fencing.schedules.nightly.missed=skip")) {
      ScheduleBeansTest.Ticks ticks = app.getBean(ScheduleBeansTest.Ticks.class);
      Apps.await("two slots ran", Duration.ofSeconds(10), () -> ticks.ran.size() >= 2);
      assertThat(ticks.ran)
          .allMatch(p -> p.contains("\"schedule\": \"tick\"") && p.contains("\"properties\""));
      assertThat(app.getBean(FencedScheduler.class).schedules())
          .containsExactlyInAnyOrder(
              new Schedule(
                  "tick",
                  2,
                  "ticks",
                  "{\"from\": \"properties\"}",
                  Trigger.every(Duration.ofSeconds(1)),
                  ZoneOffset.UTC,
                  Missed.runAll(3),
                  Duration.ofSeconds(10)),
              new Schedule(
                  "nightly",
                  1,
                  "reports",
                  "{}",
                  Trigger.cron("0 3 * * *"),
                  ZoneId.of("Europe/Berlin"),
                  Missed.skip(),
                  Schedule.DEFAULT_GRACE));
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class TickBean {
    @Bean
    Schedule everySecond() {
      return Schedule.builder("tick").every(Duration.ofSeconds(1)).queue("ticks").build();
    }
  }

  @Test
  void aNameThatIsBothABeanAndAPropertyStopsTheContextNamingBoth() {
    String schema = Apps.db().freshSchema("schedprops");
    assertThatThrownBy(
            () ->
                Apps.start(
                    TickBean.class,
                    schema,
                    "fencing.schedules.tick.queue=ticks",
                    "fencing.schedules.tick.every=1m"))
        .rootCause()
        .hasMessage(
            "schedule 'tick' must be defined once, but is both the Schedule bean 'everySecond'"
                + " and fencing.schedules.tick");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "every=1m | fencing.schedules.t.queue must be a plain identifier ([a-z_][a-z0-9_]{0,62}), but was null",
        "queue=q | fencing.schedules.t.cron or fencing.schedules.t.every must be set, one of them, but neither was",
        "queue=q; every=1m; cron=0 3 * * * | fencing.schedules.t.cron or fencing.schedules.t.every must be set, one of them, but both were",
        "queue=q; every=1m; missed=run-all:0 | fencing.schedules.t.missed must be run-once, skip or run-all:N with N from 1 to 1000, but was 'run-all:0'",
        "queue=q; every=1m; missed=later | fencing.schedules.t.missed must be run-once, skip or run-all:N with N from 1 to 1000, but was 'later'",
        "queue=q; cron=0 3 * * *; zone=Mars/Olympus | fencing.schedules.t.zone must be a time zone such as Europe/Berlin, but was 'Mars/Olympus'",
        "queue=q; every=10ms | fencing.schedules.t.every must be between PT0.1S and PT8784H, but was PT0.01S",
        "queue=q; every=1m; revision=0 | fencing.schedules.t.revision must be between 1 and 9223372036854775807, but was 0",
      })
  void aBadSchedulePropertyStopsTheContextNamingIt(String settings, String message) {
    String[] props =
        java.util.Arrays.stream(settings.split(";"))
            .map(setting -> "fencing.schedules.t." + setting.strip())
            .toArray(String[]::new);
    assertThatThrownBy(() -> Apps.start(TicksOnly.class, "never_created", props))
        .rootCause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void aBadCronExpressionStopsTheContextNamingTheSchedule() {
    String schema = Apps.db().freshSchema("schedprops");
    assertThatThrownBy(
            () ->
                Apps.start(
                    TicksOnly.class,
                    schema,
                    "fencing.schedules.nightly.queue=reports",
                    "fencing.schedules.nightly.cron=0 25 * * *"))
        .rootCause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("fencing.schedules.nightly: ")
        .hasMessageContaining("0 25 * * *");
  }

  @Test
  void schedulePropertiesWithoutFencingScheduleOnTheClassPathStopTheContext() {
    String schema = Apps.db().freshSchema("schedprops");
    List<String> props = new ArrayList<>(ScheduleBeansTest.dataSource());
    props.add("fencing.schema=" + schema);
    props.add("fencing.schedules.tick.queue=ticks");
    props.add("fencing.schedules.tick.every=1s");
    ClassLoader hiding =
        new ScheduleBeansTest.Hiding(getClass().getClassLoader(), "dev.fencing.schedule.");
    assertThatThrownBy(
            () ->
                new SpringApplicationBuilder(TicksOnly.class)
                    .resourceLoader(new DefaultResourceLoader(hiding))
                    .web(WebApplicationType.NONE)
                    .properties(props.toArray(String[]::new))
                    .run())
        .rootCause()
        .hasMessage(
            "fencing.schedules sets [tick], but fencing-schedule is not on the class path: add"
                + " the dependency dev.fencing:fencing-schedule");
  }
}
