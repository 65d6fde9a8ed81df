package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Without a DataSource the auto-configuration used to back off without a word, and the application
 * failed on its own injection of {@code FencedQueue} (issue 32). Now the context fails with Spring
 * Boot's report saying what to add.
 */
class WithoutADataSourceTheStarterBackedOffSilentlyTest {

  private static final String NONE =
      "fencing needs a DataSource on PostgreSQL, but spring.datasource.url is not set and the"
          + " application defines no DataSource of its own.";
  private static final String ADD_URL =
      "Set spring.datasource.url=jdbc:postgresql://<host>:5432/<database> (with"
          + " spring.datasource.username and spring.datasource.password) in"
          + " application.properties, or define a DataSource bean.";

  @Test
  void withoutSpringDatasourceUrlTheReportNamesTheProperty() {
    assertThat(failureReport(StarterTest.OneHandler.class)).contains(analysis(NONE, ADD_URL));
  }

  @Test
  void withoutAnyDataSourceBeanTheReportNamesTheProperty() {
    assertThat(
            failureReport(
                StarterTest.OneHandler.class,
                "spring.autoconfigure.exclude="
                    + "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"))
        .contains(analysis(NONE, ADD_URL));
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class TwoDataSources {
    @Bean
    DataSource orders() {
      return Apps.db().dataSource();
    }

    @Bean
    DataSource billing() {
      return Apps.db().dataSource();
    }
  }

  @Test
  void withTwoDataSourcesAndNoPrimaryTheReportNamesBoth() {
    assertThat(failureReport(TwoDataSources.class))
        .contains(
            analysis(
                "fencing needs one DataSource, but the application has 2 and none is @Primary:"
                    + " orders, billing.",
                "Mark the DataSource bean fencing should use @Primary (one of orders, billing), or"
                    + " define a PostgresFencing bean built on it with"
                    + " PostgresFencing.builder(dataSource)."));
  }

  /** Spring Boot's "APPLICATION FAILED TO START" report, as it prints it. */
  private static String analysis(String description, String action) {
    return "Description:\n\n" + description + "\n\nAction:\n\n" + action + "\n";
  }

  /** Runs an application of {@code source} that fails to start; returns what it printed. */
  private static String failureReport(Class<?> source, String... properties) {
    PrintStream out = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      List<String> props = new java.util.ArrayList<>(List.of(properties));
      props.add("spring.main.banner-mode=off");
      props.add("logging.level.root=warn");
      assertThatThrownBy(
              () ->
                  new SpringApplicationBuilder(source)
                      .web(WebApplicationType.NONE)
                      .properties(props.toArray(String[]::new))
                      .run()
                      .close())
          .isInstanceOf(RuntimeException.class);
    } finally {
      System.setOut(out);
    }
    String report = printed.toString(StandardCharsets.UTF_8);
    out.print(report);
    return report;
  }
}
