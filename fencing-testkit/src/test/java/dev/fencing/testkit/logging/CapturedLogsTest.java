package dev.fencing.testkit.logging;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class CapturedLogsTest {

  private static final Logger LOG = LoggerFactory.getLogger("dev.fencing.testkit.logging.sample");
  private static final Logger BELOW =
      LoggerFactory.getLogger("dev.fencing.testkit.logging.sample.x");
  private static final Logger BESIDE = LoggerFactory.getLogger("dev.fencing.testkit.logging.other");

  @Test
  void capturesEveryLevelOfTheLoggerAndThoseBelowItWithTheArgumentsFilledIn() {
    try (CapturedLogs logs = CapturedLogs.of("dev.fencing.testkit.logging.sample")) {
      LOG.debug("queue {} by {}", "q", "w1");
      BELOW.warn("failed {} times", 3, new IllegalStateException("down"));
      BESIDE.error("not this one");

      assertThat(logs.messages()).containsExactly("queue q by w1", "failed 3 times");
    }
  }

  @Test
  void afterCloseTheLoggerHasItsLevelAndItsConsoleBackAndNothingMoreIsCaptured() {
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger)
            LoggerFactory.getLogger("dev.fencing.testkit.logging.sample");
    CapturedLogs logs = CapturedLogs.of("dev.fencing.testkit.logging.sample");
    assertThat(LOG.isTraceEnabled()).isTrue();
    assertThat(logger.isAdditive()).isFalse();

    logs.close();
    LOG.warn("after close");

    assertThat(logs.messages()).isEmpty();
    assertThat(logger.getLevel()).isNull();
    assertThat(logger.isAdditive()).isTrue();
    assertThat(LOG.isDebugEnabled()).as("the tests' configuration logs WARN and above").isFalse();
  }
}
