package dev.fencing.spring.internal;

import dev.fencing.FencedQueue;
import dev.fencing.JobCodec;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.spring.FencingProperties;
import dev.fencing.spring.ManagedWorkers;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The fenced queue on the application's {@link DataSource}, through {@link PostgresFencing}; the
 * workers (one {@link dev.fencing.runtime.FencedWorkers}) that run each queue's handler bean, the
 * schedules, the outbox relays and maintenance; meters in the application's registry when it has
 * one. Each bean backs off when the application defines its own of that type. Without one {@link
 * DataSource} (none configured, or several and none primary) the context fails saying what to add
 * ({@link MissingDataSourceException}), rather than backing off and leaving the application's
 * injection of {@link FencedQueue} to fail.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
    })
@EnableConfigurationProperties(FencingProperties.class)
public class FencingAutoConfiguration {

  /**
   * Builds the PostgreSQL door on the application's data source, installing the schema if set.
   * Closed by the workers' stop, and by the context (idempotently) before the data source.
   */
  @Bean
  @ConditionalOnMissingBean
  PostgresFencing postgresFencing(
      ObjectProvider<DataSource> dataSources,
      ConfigurableListableBeanFactory beans,
      FencingProperties properties,
      JobCodec codec) {
    PostgresFencing.Builder builder =
        PostgresFencing.builder(dataSource(dataSources, beans))
            .schema(properties.schema())
            .install(properties.install())
            .codec(codec);
    PostgresFencing.Engine engine = properties.engine();
    if (engine != null) {
      builder.engine(engine);
    }
    if (properties.maxAttempts() != null) {
      builder.maxAttempts(properties.maxAttempts());
    }
    return builder.build();
  }

  /**
   * Returns the application's one data source.
   *
   * @throws MissingDataSourceException if it has none, or several and none is primary
   */
  private static DataSource dataSource(
      ObjectProvider<DataSource> dataSources, ConfigurableListableBeanFactory beans) {
    List<String> names = List.of(beans.getBeanNamesForType(DataSource.class));
    if (names.isEmpty()) {
      throw MissingDataSourceException.none(null);
    }
    // a provider records no dependency: without one the context could close a pool before us
    names.forEach(name -> beans.registerDependentBean(name, "postgresFencing"));
    DataSource dataSource = dataSources.getIfUnique();
    if (dataSource == null) {
      throw MissingDataSourceException.several(names);
    }
    return dataSource;
  }

  /**
   * The codec of typed jobs ({@code JobType}) when fencing-jackson is on the class path: the
   * application's Jackson {@code JsonMapper} (Boot's, with its modules and settings), or
   * fencing-jackson's own when the application has none.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(
      name = {"dev.fencing.jackson.JacksonJobCodec", "tools.jackson.databind.json.JsonMapper"})
  static class JacksonCodec {
    @Bean
    @ConditionalOnMissingBean
    JobCodec fencingJobCodec(ObjectProvider<tools.jackson.databind.json.JsonMapper> mapper) {
      tools.jackson.databind.json.JsonMapper application = mapper.getIfUnique();
      return application != null
          ? dev.fencing.jackson.JacksonJobCodec.of(application)
          : dev.fencing.jackson.JacksonJobCodec.create();
    }
  }

  /**
   * The codec of typed jobs otherwise: the one {@link JobCodec#discover()} finds, JSON text only
   * when none is on the class path.
   */
  @Bean
  @ConditionalOnMissingBean
  JobCodec fencingJobCodec() {
    return JobCodec.discover();
  }

  @Bean
  Meters fencingMeters(ObjectProvider<MeterRegistry> registry, FencingProperties properties) {
    return new Meters(registry.getIfUnique(), properties.metrics().tags());
  }

  /** The queue to enqueue to (and claim from), metered when the application has a registry. */
  @Bean
  @ConditionalOnMissingBean
  FencedQueue fencedQueue(PostgresFencing fencing, Meters meters) {
    return meters.queue(fencing.queue());
  }

  /** Sets the limits of the queues whose properties apply them, before the workers start. */
  @Bean
  QueueLimitsAtStart fencingQueueLimits(FencedQueue queue, FencingProperties properties) {
    return new QueueLimitsAtStart(queue, properties);
  }

  @Bean
  @ConditionalOnMissingBean(ManagedWorkers.class)
  Workers fencedWorkers(
      FencedQueue queue,
      PostgresFencing fencing,
      FencingProperties properties,
      Meters meters,
      ListableBeanFactory beans,
      Environment environment,
      JobCodec codec) {
    boolean virtualThreads =
        properties.virtualThreads() != null
            ? properties.virtualThreads()
            : environment.getProperty(
                "spring.threads.virtual.enabled",
                Boolean.class,
                FencedWorkers.defaultVirtualThreads());
    return new Workers(queue, fencing, properties, meters, beans, virtualThreads, codec);
  }
}
