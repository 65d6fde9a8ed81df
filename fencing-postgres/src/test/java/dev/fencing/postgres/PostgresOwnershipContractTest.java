package dev.fencing.postgres;

import dev.fencing.ResourceOwnership;
import dev.fencing.testkit.contract.ResourceOwnershipContract;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import org.junit.jupiter.api.BeforeEach;

/** The resource-ownership contract against a real PostgreSQL; every client on the same schema. */
@FencingDatabase
class PostgresOwnershipContractTest extends ResourceOwnershipContract {

  private TestSchema schema;

  @BeforeEach
  void useSchema(TestSchema schema) {
    this.schema = schema;
  }

  @Override
  protected ResourceOwnership open() {
    return PostgresFencing.builder(schema.sharedPool()).schema(schema.name()).build().ownership();
  }
}
