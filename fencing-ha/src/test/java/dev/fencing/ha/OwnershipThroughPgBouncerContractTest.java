package dev.fencing.ha;

import dev.fencing.ResourceOwnership;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.contract.ResourceOwnershipContract;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/** The resource-ownership contract through PgBouncer in transaction mode. */
@FencingDatabase
@ExtendWith(SharedPgBouncer.class)
class OwnershipThroughPgBouncerContractTest extends ResourceOwnershipContract {

  private static DataSource throughBouncer;
  private TestSchema schema;

  @BeforeAll
  static void pool(PgBouncerProcess bouncer) {
    throughBouncer = bouncer.database(PgBouncerProcess.PGJDBC_PARAMETERS).pooledDataSource(4);
  }

  @BeforeEach
  void useSchema(TestSchema schema) {
    this.schema = schema;
  }

  @Override
  protected ResourceOwnership open() {
    return PostgresFencing.builder(throughBouncer).schema(schema.name()).build().ownership();
  }
}
