package dev.fencing.testkit.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * The lines one SLF4J logger (and the loggers below it) logs while this is open, with their
 * arguments filled in: what the code under test told an operator. Captures every level, and keeps
 * the captured lines from the console (the test reads them instead); {@link #close()} restores the
 * logger's level and its console.
 *
 * <pre>{@code
 * try (CapturedLogs audit = CapturedLogs.of("dev.fencing.console.audit")) {
 *   ... // act
 *   assertThat(audit.messages()).containsExactly("console: ops (operator) requeue job 7: done");
 * }
 * }</pre>
 *
 * <p>Needs Logback as the test class path's SLF4J binding ({@code ch.qos.logback:logback-classic},
 * an optional dependency of the kit), and no other binding. Safe to read while other threads log.
 *
 * @since 0.1
 */
public final class CapturedLogs implements AutoCloseable {

  private final Logger logger;
  private final @Nullable Level level;
  private final boolean additive;
  private final List<String> messages = new CopyOnWriteArrayList<>();
  private final AppenderBase<ILoggingEvent> appender =
      new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
          messages.add(event.getFormattedMessage());
        }
      };

  private CapturedLogs(LoggerContext context, String name) {
    logger = context.getLogger(name);
    level = logger.getLevel();
    additive = logger.isAdditive();
    appender.setContext(context);
    appender.setName("captured " + name);
    appender.start();
    logger.addAppender(appender);
    logger.setLevel(Level.ALL);
    logger.setAdditive(false);
  }

  /**
   * Starts capturing what the logger {@code name} logs.
   *
   * @throws IllegalStateException if SLF4J is not bound to Logback
   */
  public static CapturedLogs of(String name) {
    ILoggerFactory factory = LoggerFactory.getILoggerFactory();
    if (!(factory instanceof LoggerContext context)) {
      throw new IllegalStateException(
          "CapturedLogs reads Logback's loggers, but SLF4J is bound to "
              + factory.getClass().getName()
              + ": add ch.qos.logback:logback-classic to the test class path, and no other SLF4J"
              + " binding");
    }
    return new CapturedLogs(context, name);
  }

  /** The lines logged so far, oldest first, each its message with its arguments filled in. */
  public List<String> messages() {
    return List.copyOf(messages);
  }

  /** Stops capturing; the logger logs again at its own level, to the console. */
  @Override
  public void close() {
    logger.detachAppender(appender);
    appender.stop();
    logger.setLevel(level);
    logger.setAdditive(additive);
  }
}
