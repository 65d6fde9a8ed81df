package com.example.invoices;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.ZombieScenario;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The seed's two orderings, with a real SIGSTOP, against this project's receiver. */
@FencingDatabase
class InvoiceSenderZombieScenarioTest {

  @ParameterizedTest
  @EnumSource(ZombieScenario.Ordering.class)
  void aFrozenSenderNeverSendsAnInvoiceLate(
      ZombieScenario.Ordering ordering, PostgresFixture.Database db) {
    ZombieScenario scenario =
        new ZombieScenario(db, InvoiceBackend.class, "invoices_demo", Duration.ofMillis(800));
    assertThat(scenario.run(ordering).row()).isEqualTo(ZombieScenario.expected(ordering));
  }
}
