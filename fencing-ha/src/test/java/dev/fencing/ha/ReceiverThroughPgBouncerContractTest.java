package dev.fencing.ha;

import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.contract.FencedReceiverContract;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/** The receiver contract through PgBouncer in transaction mode. */
@FencingDatabase
@ExtendWith(SharedPgBouncer.class)
class ReceiverThroughPgBouncerContractTest extends FencedReceiverContract {

  private static DataSource throughBouncer;
  private FencedReceiver receiver;

  @BeforeAll
  static void pool(PgBouncerProcess bouncer) {
    throughBouncer = bouncer.database(PgBouncerProcess.PGJDBC_PARAMETERS).pooledDataSource(4);
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
