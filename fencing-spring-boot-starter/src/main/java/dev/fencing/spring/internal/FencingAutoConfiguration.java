package dev.fencing.spring.internal;

import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.spring.FencedWorkers;
import dev.fencing.spring.FencingProperties;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The fenced queue on the application's {@link DataSource}, through {@link PostgresFencing}; the
 * workers that run each queue's {@link dev.fencing.spring.QueueHandler}; meters in the
 * application's registry when it has one. Each bean backs off when the application defines its own
 * of that type.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
    })
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(FencingProperties.class)
public class FencingAutoConfiguration {

  /** Builds the PostgreSQL door on the application's data source, installing the schema if set. */
  @Bean
  @ConditionalOnMissingBean
  PostgresFencing postgresFencing(DataSource dataSource, FencingProperties properties) {
    PostgresFencing.Builder builder =
        PostgresFencing.builder(dataSource)
            .schema(properties.schema())
            .install(properties.install())
            .engine(properties.engine());
    if (properties.maxAttempts() != null) {
      builder.maxAttempts(properties.maxAttempts());
    }
    return builder.build();
  }

  @Bean
  Meters fencingMeters(ObjectProvider<MeterRegistry> registry) {
    return new Meters(registry.getIfUnique());
  }

  /** The queue to enqueue to (and claim from), metered when the application has a registry. */
  @Bean
  @ConditionalOnMissingBean
  FencedQueue fencedQueue(PostgresFencing fencing, Meters meters) {
    return meters.queue(fencing.queue());
  }

  @Bean
  @ConditionalOnMissingBean(FencedWorkers.class)
  Workers fencedWorkers(
      FencedQueue queue,
      PostgresFencing fencing,
      FencingProperties properties,
      Meters meters,
      ListableBeanFactory beans,
      Environment environment) {
    boolean virtualThreads =
        properties.virtualThreads() != null
            ? properties.virtualThreads()
            : environment.getProperty("spring.threads.virtual.enabled", Boolean.class, false);
    return new Workers(queue, fencing, properties, meters, beans, virtualThreads);
  }
}
