package dev.fencing.spring.internal;

import dev.fencing.spring.FencingProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * With HikariCP on the class path, a {@code PrimaryWaitingDataSource} under the application's pool
 * during a failover, as {@code fencing.datasource.*} says ({@link FencingProperties.Datasource}).
 */
@AutoConfiguration
@ConditionalOnClass(name = "com.zaxxer.hikari.HikariDataSource")
@EnableConfigurationProperties(FencingProperties.class)
public class FencingDataSourceAutoConfiguration {

  /** Static, as a post-processor is made before the configuration classes' beans. */
  @Bean
  static PrimaryWaitingPools fencingPrimaryWaitingPools(
      ObjectProvider<FencingProperties> properties) {
    return new PrimaryWaitingPools(properties);
  }
}
