package dev.fencing.spring;

import dev.fencing.FencedQueue;
import dev.fencing.JobSnapshot;
import dev.fencing.testkit.db.PostgresFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts real Spring Boot applications on the test PostgreSQL. */
public final class Apps {

  private Apps() {}

  /** Returns this JVM's PostgreSQL. */
  public static PostgresFixture.Database db() {
    return PostgresFixture.get();
  }

  /** The properties that put an application on {@code database}, with a fast-failing pool. */
  public static List<String> dataSource(String jdbcUrl, String user, String password) {
    List<String> props = new ArrayList<>();
    props.add("spring.datasource.url=" + jdbcUrl);
    if (!user.isEmpty()) {
      props.add("spring.datasource.username=" + user);
    }
    if (!password.isEmpty()) {
      props.add("spring.datasource.password=" + password);
    }
    props.add("spring.datasource.hikari.connection-timeout=1000");
    props.add("spring.datasource.hikari.transaction-isolation=TRANSACTION_READ_COMMITTED");
    props.add("spring.main.banner-mode=off");
    props.add("logging.level.root=warn");
    return props;
  }

  /** Runs an application of {@code source} in schema {@code schema} with {@code properties}. */
  public static ConfigurableApplicationContext start(
      Class<?> source, String schema, String... properties) {
    return start(WebApplicationType.NONE, source, schema, properties);
  }

  /**
   * Runs an application of {@code source} as {@code type} (a servlet one on a free port) in schema
   * {@code schema} with {@code properties}.
   */
  public static ConfigurableApplicationContext start(
      WebApplicationType type, Class<?> source, String schema, String... properties) {
    PostgresFixture.Database db = db();
    List<String> props = dataSource(db.jdbcUrl(), db.user(), db.password());
    props.add("fencing.schema=" + schema);
    props.add("server.port=0");
    props.addAll(List.of(properties));
    return new SpringApplicationBuilder(source)
        .web(type)
        .properties(props.toArray(String[]::new))
        .run();
  }

  /** Waits up to {@code timeout} for {@code condition}; fails saying {@code what} otherwise. */
  public static void await(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeout + " waiting until " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting until " + what, e);
      }
    }
  }

  /** Returns the snapshot of every job in {@code ids}. */
  public static List<JobSnapshot> jobs(FencedQueue queue, List<Long> ids) {
    return ids.stream().map(id -> queue.find(id).orElseThrow()).toList();
  }
}
