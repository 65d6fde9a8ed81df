package dev.fencing.spring.internal;

import dev.fencing.postgres.PostgresFencing;
import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Schedule;
import dev.fencing.spring.FencingProperties;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * One {@link FencedScheduler} for the context's {@link Schedule} beans and its {@code
 * fencing.schedules.*}, when fencing-schedule (an optional dependency of the starter) is on the
 * class path and the context has a schedule of either kind. The workers start and stop it.
 */
@AutoConfiguration(after = FencingAutoConfiguration.class)
@ConditionalOnClass(FencedScheduler.class)
@ConditionalOnBean(PostgresFencing.class)
@Conditional(FencingScheduleAutoConfiguration.OnSchedules.class)
public class FencingScheduleAutoConfiguration {

  @Bean
  Schedules fencingSchedules(
      PostgresFencing fencing,
      FencingProperties properties,
      Meters meters,
      ListableBeanFactory beans) {
    return new Schedules(fencing, properties, meters, beans.getBeansOfType(Schedule.class));
  }

  /** The scheduler, for its {@link FencedScheduler#stats()}; started and closed by the workers. */
  @Bean
  FencedScheduler fencedScheduler(Schedules schedules) {
    return schedules.scheduler();
  }

  /** A {@link Schedule} bean, or a schedule under {@code fencing.schedules}. */
  static final class OnSchedules extends AnyNestedCondition {

    OnSchedules() {
      super(ConfigurationPhase.REGISTER_BEAN);
    }

    @ConditionalOnBean(Schedule.class)
    static final class Beans {}

    @Conditional(Properties.class)
    static final class Set {}
  }

  /** Whether a property under {@code fencing.schedules} is set. */
  static final class Properties extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      Map<String, String> set =
          Binder.get(context.getEnvironment())
              .bind("fencing.schedules", Bindable.mapOf(String.class, String.class))
              .orElse(Map.of());
      return set.isEmpty()
          ? ConditionOutcome.noMatch("no fencing.schedules")
          : ConditionOutcome.match("fencing.schedules." + set.keySet());
    }
  }
}
