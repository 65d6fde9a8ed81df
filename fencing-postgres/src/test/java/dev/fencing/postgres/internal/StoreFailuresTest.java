package dev.fencing.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.SchemaNotInstalledException;
import dev.fencing.StoreUnavailableException;
import java.sql.SQLException;
import java.time.Duration;
import org.jooq.exception.DataAccessException;
import org.junit.jupiter.api.Test;

/**
 * The one translator of the database's failures: by type and SQLSTATE, never by the name of a
 * class; what is not the database's passes unchanged.
 */
class StoreFailuresTest {

  private final StoreFailures failures =
      StoreFailures.of(
          new Config("jobs", 5, 3, Duration.ofMillis(1), true, Duration.ofSeconds(1), false, null));

  @Test
  void aFailureOfTheDatabaseIsUnavailableNamingTheSchemaWithTheOriginalAsCause() {
    DataAccessException lost =
        new DataAccessException("x", new SQLException("Connection refused", "08001"));

    assertThat(failures.translate("a statement", lost))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessage(
            "PostgreSQL (schema jobs): a statement failed (transient failures retried 3 times):"
                + " Connection refused")
        .hasCause(lost);
  }

  @Test
  void aTranslatedFailureSaidOfAWholeCallKeepsEveryWordTheTranslatorSaid() {
    StoreUnavailableException translated =
        (StoreUnavailableException)
            failures.translate(
                "a statement",
                new DataAccessException("x", new SQLException("Connection refused", "08001")));
    StoreUnavailableException ours = new StoreUnavailableException("the standby is gone");

    assertThat(failures.during("removing finished jobs", translated))
        .hasMessage(
            "PostgreSQL (schema jobs): removing finished jobs: a statement failed (transient"
                + " failures retried 3 times): Connection refused")
        .hasCause(translated);
    assertThat(failures.during("vacuuming", ours))
        .hasMessage("PostgreSQL (schema jobs): vacuuming: the standby is gone")
        .hasCause(ours);
  }

  @Test
  void aMissingSchemaTableOrColumnAnywhereInTheCausesIsNotInstalled() {
    for (String state : new String[] {"3F000", "42P01", "42703"}) {
      DataAccessException missing =
          new DataAccessException(
              "x", new RuntimeException(new SQLException("relation does not exist", state)));

      assertThat(failures.translate("a statement", missing))
          .as(state)
          .isInstanceOfSatisfying(
              SchemaNotInstalledException.class, e -> assertThat(e.schema()).isEqualTo("jobs"))
          .hasMessageContaining("relation does not exist")
          .hasCause(missing);
    }
  }

  @Test
  void theApisOwnExceptionsBadInputAndOtherFailuresPassUnchanged() {
    RuntimeException[] passing = {
      new StoreUnavailableException("already translated", new SQLException("x", "08001")),
      new FencedOffException(new FencedOutcome.Superseded("k", Epoch.of(1), Epoch.of(2), "b")),
      new IllegalArgumentException("bad input"),
      new IllegalStateException("closed")
    };
    for (RuntimeException failure : passing) {
      assertThat(failures.translate("a statement", failure)).isSameAs(failure);
    }
  }

  @Test
  void runTranslatesWhatEscapesItsWork() {
    assertThatThrownBy(
            () ->
                failures.run(
                    "reading",
                    () -> {
                      throw new DataAccessException("x", new SQLException("no", "XX000"));
                    }))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessage("PostgreSQL (schema jobs): reading failed: no");
  }
}
