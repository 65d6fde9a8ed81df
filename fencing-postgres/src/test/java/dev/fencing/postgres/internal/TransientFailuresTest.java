package dev.fencing.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.jooq.exception.DataAccessException;
import org.junit.jupiter.api.Test;

/** Which failures the queue retries: lost connections, serialization, deadlocks, shutdowns. */
class TransientFailuresTest {

  @Test
  void connectionSerializationDeadlockShutdownAndTooManyConnectionsAreTransient() {
    for (String state :
        new String[] {"08000", "08006", "08P01", "40001", "40P01", "57P01", "57P02", "57P03"}) {
      assertThat(Transient.isTransient(new SQLException("x", state))).as(state).isTrue();
    }
    assertThat(Transient.isTransient(new SQLException("too many", "53300"))).isTrue();
  }

  @Test
  void dataErrorsMissingTablesAndFailuresWithoutAStateAreNotTransient() {
    for (String state : new String[] {"22P02", "42P01", "23505", "53200", "0A000"}) {
      assertThat(Transient.isTransient(new SQLException("x", state))).as(state).isFalse();
    }
    assertThat(Transient.isTransient(new SQLException("no state"))).isFalse();
    assertThat(Transient.isTransient(new IllegalStateException("not sql"))).isFalse();
  }

  @Test
  void aConnectionThePoolCouldNotHandOutInTimeIsTransientWithoutAState() {
    // HikariCP's timeout while its attempt waits under PrimaryWaitingDataSource: no state, no cause
    assertThat(
            Transient.isTransient(
                new java.sql.SQLTransientConnectionException(
                    "pool - Connection is not available, request timed out after 2000ms")))
        .isTrue();
    assertThat(
            Transient.isTransient(
                new RuntimeException(new java.sql.SQLTransientConnectionException("timed out"))))
        .isTrue();
  }

  @Test
  void aTransientCauseIsFoundUnderWrappers() {
    SQLException lost = new SQLException("connection lost", "08006");
    assertThat(Transient.isTransient(new DataAccessException("wrapped", lost))).isTrue();
    assertThat(
            Transient.isTransient(
                new RuntimeException(new DataAccessException("x", new SQLException("y", "22P02")))))
        .isFalse();
  }

  @Test
  void aCauseChainThatLoopsEndsTheSearch() {
    RuntimeException a = new RuntimeException("a");
    RuntimeException b = new RuntimeException("b", a);
    a.initCause(b);

    assertThat(Transient.isTransient(a)).isFalse();
    assertThat((Object) Text.dataException(a)).isNull();
  }

  @Test
  void aCauseDeeperThanTheBoundIsNotSearched() {
    Throwable deep = new SQLException("connection lost", "08006");
    for (int i = 1; i < Text.MAX_CAUSES; i++) {
      deep = new RuntimeException(deep);
    }
    assertThat(Transient.isTransient(deep)).isTrue();
    assertThat(Transient.isTransient(new RuntimeException(deep))).isFalse();
  }
}
