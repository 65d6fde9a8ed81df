package dev.fencing.ledger;

import dev.fencing.FencedReceiver;
import dev.fencing.ResourceOwnership;
import dev.fencing.etcd.EtcdOwnership;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.process.OwnershipBackend;
import javax.sql.DataSource;

/**
 * etcd ownership and the PostgreSQL receiver, as producer processes of the suite open them. It
 * lives here rather than in fencing-etcd, whose tests run on the module path, where javax.sql is
 * not readable by the module's tests.
 */
public final class EtcdPropertiesBackend implements OwnershipBackend {

  @Override
  public ResourceOwnership ownership(String address, DataSource database) {
    return EtcdOwnership.builder(address.split(",")).build();
  }

  @Override
  public FencedReceiver receiver(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource).schema(schema).build().receiver("default");
  }
}
