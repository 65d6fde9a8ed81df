package dev.fencing.ha;

import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.contract.FencedReceiverContract;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** The receiver contract through PgBouncer in transaction mode. */
@FencingDatabase
class ReceiverThroughPgBouncerContractTest extends FencedReceiverContract {

  private static DataSource throughBouncer;
  private FencedReceiver receiver;

  @BeforeAll
  static void pool() {
    throughBouncer = PgBouncerProcess.shared().pool(4);
  }

  @BeforeEach
  void install(TestSchema schema) {
    receiver =
        PostgresFencing.builder(throughBouncer).schema(schema.name()).build().receiver("contract");
  }

  @Override
  protected FencedReceiver receiver() {
    return receiver;
  }
}
