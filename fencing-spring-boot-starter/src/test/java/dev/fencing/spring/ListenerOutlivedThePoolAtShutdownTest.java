package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * On SIGTERM the wake-ups' listening connection outlived HikariCP's pool: the pool closed it under
 * the listener, which logged a broken connection (SQLSTATE 08003) after "Shutdown completed" (issue
 * 32). The workers' stop now gives it back before the pool closes, and says once that the runtimes
 * drained; the worker door (issue 35) does not own the handle, so the stop still closes it after
 * the door's shutdown, whatever the door runs.
 */
class ListenerOutlivedThePoolAtShutdownTest {

  private static final String DRAINED = "dev.fencing.spring.internal.Workers";

  @Test
  void theWorkersStopClosesTheListenerBeforeThePoolAndLogsOneLineAndNoWarning() throws Exception {
    String schema = Apps.db().freshSchema("shutdown");
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    ConfigurableApplicationContext app =
        Apps.start(StarterTest.OneHandler.class, schema, "logging.level.dev.fencing=info");
    try {
      Logger root = root();
      logs.start();
      root.addAppender(logs);
      FencedQueue queue = app.getBean(FencedQueue.class);
      for (int i = 0; i < 3; i++) {
        queue.enqueue("emails", "{}");
      }
      Apps.await(
          "the handler ran 3 jobs",
          Duration.ofSeconds(20),
          () -> app.getBean(StarterTest.Recording.class).ran.size() == 3);
      // the handler returned; its result may still be on its way to the commit
      Apps.await(
          "3 jobs committed",
          Duration.ofSeconds(10),
          () -> app.getBean(ManagedWorkers.class).stats().get("emails").completed() == 3);
      Apps.await("the listener listens", Duration.ofSeconds(10), () -> listening(schema) == 1);

      app.stop();

      HikariDataSource pool = app.getBean(HikariDataSource.class);
      assertThat(pool.isClosed()).as("the pool is still open").isFalse();
      assertThat(listening(schema)).as("LISTEN sessions of ours").isZero();
      assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
    } finally {
      app.close();
    }
    Thread.sleep(1_000); // a listener left behind reads its dead connection within 250 ms
    root().detachAppender(logs);

    List<ILoggingEvent> ours =
        logs.list.stream()
            .filter(
                e ->
                    e.getLoggerName().startsWith("dev.fencing")
                        || e.getLoggerName().startsWith("com.zaxxer.hikari"))
            .toList();
    assertThat(ours)
        .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN) || e.getThrowableProxy() != null)
        .extracting(ILoggingEvent::getFormattedMessage)
        .isEmpty();
    assertThat(ours)
        .filteredOn(e -> e.getLoggerName().equals(DRAINED) && e.getLevel() == Level.INFO)
        .extracting(ILoggingEvent::getFormattedMessage)
        .filteredOn(m -> m.contains(" drained "))
        .singleElement()
        .asString()
        .matches(
            "fencing: owner \\S+ drained 1 queue \\[emails\\] in \\d+ ms: 0 jobs completed, 0"
                + " released, 0 failed during the drain; the listening connection is closed");
  }

  /**
   * Every kind of application the starter runs (a queue, a producer only with maintenance, a
   * scheduler, an outbox handler with relays and a receiver) closed at once, without a stop first:
   * no WARN, no ERROR and no stack trace from fencing, HikariCP or Spring, the drain line once, and
   * no thread of the workers left.
   */
  @ParameterizedTest
  @ValueSource(
      classes = {
        StarterTest.OneHandler.class,
        StarterTest.NoHandler.class,
        ScheduleBeansTest.EverySecond.class,
        OutboxBeansTest.Billing.class
      })
  void everyKindOfApplicationClosesWithoutAWarningAndLeavesNoThreadBehind(Class<?> source)
      throws Exception {
    String schema = Apps.db().freshSchema("close");
    String owner = "closing-" + source.getSimpleName().toLowerCase(java.util.Locale.ROOT);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    boolean outbox = source == OutboxBeansTest.Billing.class;
    ConfigurableApplicationContext app =
        Apps.start(
            source,
            schema,
            "logging.level.dev.fencing=info",
            "fencing.owner=" + owner,
            "fencing.receiver=" + (outbox ? "ledger" : ""));
    try {
      logs.start();
      root().addAppender(logs);
      FencedQueue queue = app.getBean(FencedQueue.class);
      String handled =
          outbox ? "invoices" : source == ScheduleBeansTest.EverySecond.class ? "ticks" : "emails";
      long id = queue.enqueue(handled, "{}");
      Apps.await(
          "the job ended, or was left to another instance",
          Duration.ofSeconds(20),
          () ->
              source == StarterTest.NoHandler.class
                  || queue.find(id).orElseThrow().state() == dev.fencing.JobState.COMPLETED);
      Thread.sleep(300);
    } finally {
      app.close();
    }
    Thread.sleep(1_000); // a listener left behind reads its dead connection within 250 ms
    root().detachAppender(logs);

    assertThat(logs.list)
        .filteredOn(
            e ->
                e.getLevel().isGreaterOrEqual(Level.WARN)
                    || e.getThrowableProxy() != null && !e.getLoggerName().startsWith("io.zonky"))
        .extracting(e -> e.getLoggerName() + ": " + e.getFormattedMessage())
        .isEmpty();
    assertThat(logs.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .filteredOn(m -> m.startsWith("fencing: owner " + owner + " drained "))
        .hasSize(1);
    assertThat(Thread.getAllStackTraces().keySet())
        .extracting(Thread::getName)
        .noneMatch(
            name -> name.contains(owner) || name.equals("fencing-wakeups-fencing_" + schema));
  }

  @Test
  void aContextStoppedDoesNotRestartItsWorkers() {
    String schema = Apps.db().freshSchema("shutdown");
    try (ConfigurableApplicationContext app = Apps.start(StarterTest.OneHandler.class, schema)) {
      app.stop();
      assertThatThrownBy(app::start)
          .rootCause()
          .isInstanceOf(IllegalStateException.class)
          .hasMessageMatching("the fencing workers of owner \\S+ were stopped and do not restart");
    }
  }

  private static Logger root() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    return context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }

  /** How many backends of the test database last ran the LISTEN of {@code schema}'s channel. */
  private static int listening(String schema) {
    try (Connection c = Apps.db().dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select count(*) from pg_stat_activity where datname = current_database()"
                    + " and query = ?")) {
      s.setString(1, "LISTEN \"fencing_" + schema + "\"");
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
