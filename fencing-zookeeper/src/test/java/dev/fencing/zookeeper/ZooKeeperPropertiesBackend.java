package dev.fencing.zookeeper;

import dev.fencing.FencedReceiver;
import dev.fencing.ResourceOwnership;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.process.OwnershipBackend;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * ZooKeeper ownership and the PostgreSQL receiver, as producer processes of the suite open them.
 */
public final class ZooKeeperPropertiesBackend implements OwnershipBackend {

  @Override
  public ResourceOwnership ownership(String address, DataSource database) {
    return ZooKeeperOwnership.builder(address).sessionTimeout(Duration.ofSeconds(4)).build();
  }

  @Override
  public FencedReceiver receiver(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource).schema(schema).build().receiver("default");
  }
}
