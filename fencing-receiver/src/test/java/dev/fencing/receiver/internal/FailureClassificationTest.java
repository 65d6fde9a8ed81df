package dev.fencing.receiver.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Which SQL failures a receiver retries, and the syntax check of the in-memory receiver, on the
 * exceptions and texts themselves.
 */
class FailureClassificationTest {

  @Test
  void connectionFailuresSerializationDeadlocksAndShutdownsAreTransient() {
    for (String state : new String[] {"08000", "08006", "08P01", "40001", "40P01", "57P01"}) {
      assertThat(Transient.state(state)).as(state).isTrue();
    }
    assertThat(Transient.state("57P02")).isTrue();
    assertThat(Transient.state("57P03")).isTrue();
  }

  @Test
  void dataErrorsMissingTablesAndUnknownStatesAreNotTransient() {
    for (String state : new String[] {"22P02", "42P01", "23505", "57014", "0A000", "X08"}) {
      assertThat(Transient.state(state)).as(state).isFalse();
    }
    assertThat(Transient.state(null)).isFalse();
    assertThat(Transient.failure(new SQLException("no state"))).isFalse();
    assertThat(Transient.failure(null)).isFalse();
  }

  @Test
  void aTransientSqlFailureIsFoundUnderWrappersThatAreNotSqlExceptions() {
    SQLException dropped = new SQLException("connection lost", "08006");
    assertThat(Transient.failure(dropped)).isTrue();
    assertThat(Transient.failure(new RuntimeException(new IllegalStateException(dropped))))
        .isTrue();
    assertThat(Transient.failure(new RuntimeException(new SQLException("bad", "22P02")))).isFalse();
  }

  @Test
  void causesAreFollowedSixteenDeepAndNoDeeper() {
    assertThat(Transient.failure(wrapped(new SQLException("lost", "08006"), 15))).isTrue();
    assertThat(Transient.failure(wrapped(new SQLException("lost", "08006"), 16))).isFalse();
  }

  @Test
  void aCyclicCauseChainEnds() {
    SQLException a = new SQLException("a", "42000");
    SQLException b = new SQLException("b", "42000");
    a.initCause(b);
    b.initCause(a);
    assertThat(Transient.failure(a)).isFalse();
  }

  @Test
  void jsonTextThatIsOneValueComesBackUnchanged() {
    String json = " [1, {\"a\": null}] ";
    assertThat(JsonText.check("payload", json)).isSameAs(json);
    assertThatThrownBy(() -> JsonText.check("result", "[1] [2]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("result must be exactly one JSON value (a second value at line 1");
    assertThatThrownBy(() -> JsonText.check("result", " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("result must be exactly one JSON value (no value), but was ' '");
  }

  @Test
  void aValueIsShownInFullUpTo120Characters() {
    assertThat(Inputs.quote("a".repeat(120))).isEqualTo("'" + "a".repeat(120) + "'");
    assertThat(Inputs.quote("a".repeat(121))).isEqualTo("'" + "a".repeat(120) + "...'");
    assertThat(Inputs.quote("a\0b")).isEqualTo("'a\\0b'");
  }

  private static Throwable wrapped(Throwable cause, int depth) {
    Throwable t = cause;
    for (int i = 0; i < depth; i++) {
      t = new RuntimeException("wrapper " + i, t);
    }
    return t;
  }
}
