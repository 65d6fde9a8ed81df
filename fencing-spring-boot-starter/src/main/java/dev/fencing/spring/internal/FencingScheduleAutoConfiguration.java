package dev.fencing.spring.internal;

import dev.fencing.postgres.PostgresFencing;
import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Schedule;
import dev.fencing.spring.FencingProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * One {@link FencedScheduler} for the context's {@link Schedule} beans, when fencing-schedule (an
 * optional dependency of the starter) is on the class path and the context has a schedule.
 */
@AutoConfiguration(after = FencingAutoConfiguration.class)
@ConditionalOnClass(FencedScheduler.class)
@ConditionalOnBean({PostgresFencing.class, Schedule.class})
public class FencingScheduleAutoConfiguration {

  @Bean
  Schedules fencingSchedules(
      PostgresFencing fencing,
      FencingProperties properties,
      Meters meters,
      ObjectProvider<Schedule> schedules) {
    return new Schedules(fencing, properties, meters, schedules.orderedStream().toList());
  }

  /** The scheduler, for its {@link FencedScheduler#stats()}; started and closed by the context. */
  @Bean
  FencedScheduler fencedScheduler(Schedules schedules) {
    return schedules.scheduler();
  }
}
