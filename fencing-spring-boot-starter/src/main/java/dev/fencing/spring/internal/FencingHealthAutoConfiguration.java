package dev.fencing.spring.internal;

import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.spring.FencingProperties;
import dev.fencing.spring.ManagedWorkers;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The health indicator {@code fencing}, when Actuator's health support is on the class path; {@code
 * management.health.fencing.enabled=false} turns it off.
 */
@AutoConfiguration(after = FencingAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean({PostgresFencing.class, FencedQueue.class, ManagedWorkers.class})
@ConditionalOnEnabledHealthIndicator("fencing")
public class FencingHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "fencingHealthIndicator")
  HealthIndicator fencingHealthIndicator(
      PostgresFencing fencing,
      FencedQueue queue,
      ManagedWorkers workers,
      FencingProperties properties,
      ObjectProvider<HealthDetails> details) {
    return new FencingHealthIndicator(
        fencing,
        queue,
        workers,
        properties.queues().keySet(),
        properties.health().timeout(),
        details);
  }
}
