package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Every fencing meter carries the tags of {@code fencing.metrics.tags.*}, and none is tagged with
 * the owner name: the scheduler's meters were tagged {@code scheduler=<owner>}, a time series per
 * process.
 */
class MeterTagsTest {

  @Test
  void everyFencingMeterHasThePropertiesTagsAndNoneTheOwnerName() {
    String schema = Apps.db().freshSchema("tags");
    try (ConfigurableApplicationContext app =
        Apps.start(
            ScheduleBeansTest.EverySecond.class,
            schema,
            "fencing.owner=pod-7",
            "fencing.metrics.tags.service=billing",
            "fencing.metrics.tags.region=eu")) {
      ScheduleBeansTest.Ticks ticks = app.getBean(ScheduleBeansTest.Ticks.class);
      Apps.await("a slot ran", Duration.ofSeconds(10), () -> !ticks.ran.isEmpty());
      MeterRegistry registry = app.getBean(MeterRegistry.class);
      Apps.await(
          "a maintenance round",
          Duration.ofSeconds(10),
          () -> app.getBean(ManagedWorkers.class).maintenanceStats().rounds() > 0);

      List<Meter> ours =
          registry.getMeters().stream()
              .filter(m -> m.getId().getName().startsWith("fencing."))
              .toList();
      assertThat(ours)
          .extracting(m -> m.getId().getName())
          .contains(
              "fencing.claim",
              "fencing.queue.depth",
              "fencing.runtime.jobs.ended",
              "fencing.schedule.slots",
              "fencing.maintenance.jobs");
      assertThat(ours)
          .allSatisfy(
              m ->
                  assertThat(m.getId().getTags())
                      .as(m.getId().toString())
                      .contains(Tag.of("service", "billing"), Tag.of("region", "eu")));
      assertThat(ours)
          .flatExtracting(m -> m.getId().getTags())
          .extracting(Tag::getValue)
          .doesNotContain("pod-7");
    }
  }

  @Test
  void aTagKeyTheMetersSetThemselvesStopsTheContextNamingTheProperty() {
    String schema = Apps.db().freshSchema("tags");
    assertThatThrownBy(
            () -> Apps.start(StarterTest.OneHandler.class, schema, "fencing.metrics.tags.queue=x"))
        .rootCause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "fencing.metrics.tags: tags must not use the key 'queue', which the meters set"
                + " themselves");
  }
}
