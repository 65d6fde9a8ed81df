package dev.fencing.spring.internal;

import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * Reports, as Spring Boot's "APPLICATION FAILED TO START", what to add when fencing has no one
 * {@link DataSource}: a {@link MissingDataSourceException}, or Spring's own DataSource failing to
 * be made while {@code spring.datasource.url} is not set (Spring's analysis of that names neither
 * PostgreSQL nor the property, so this one comes first).
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
public final class MissingDataSourceFailureAnalyzer implements FailureAnalyzer {

  private final BeanFactory beans;
  private final Environment environment;

  /** Made by Spring Boot's failure analysis, with the context's bean factory and environment. */
  public MissingDataSourceFailureAnalyzer(BeanFactory beans, Environment environment) {
    this.beans = beans;
    this.environment = environment;
  }

  @Override
  public @Nullable FailureAnalysis analyze(Throwable failure) {
    boolean dataSourceFailed = false;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof MissingDataSourceException missing) {
        return new FailureAnalysis(missing.getMessage(), missing.action(), missing);
      }
      dataSourceFailed |= t instanceof BeanCreationException b && isDataSource(b.getBeanName());
    }
    if (dataSourceFailed && !environment.containsProperty("spring.datasource.url")) {
      MissingDataSourceException none = MissingDataSourceException.none(failure);
      return new FailureAnalysis(none.getMessage(), none.action(), failure);
    }
    return null;
  }

  private boolean isDataSource(@Nullable String bean) {
    return bean != null && beans.containsBean(bean) && beans.isTypeMatch(bean, DataSource.class);
  }
}
