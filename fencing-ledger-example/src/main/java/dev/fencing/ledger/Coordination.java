package dev.fencing.ledger;

import dev.fencing.ResourceOwnership;
import dev.fencing.etcd.EtcdOwnership;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.zookeeper.ZooKeeperOwnership;
import java.time.Duration;
import javax.sql.DataSource;

/** Opens the coordination backend a producer was told to use. */
final class Coordination {

  private Coordination() {}

  /**
   * Opens {@code spec}: {@code postgres:<schema>} (in the ledger's database), {@code
   * etcd:<endpoint>,<endpoint>...} or {@code zookeeper:<host:port>,<host:port>...}.
   *
   * @throws IllegalArgumentException if {@code spec} names no known backend
   */
  static ResourceOwnership open(String spec, DataSource ledgerDatabase) {
    int colon = spec.indexOf(':');
    String backend = colon < 0 ? spec : spec.substring(0, colon);
    String address = colon < 0 ? "" : spec.substring(colon + 1);
    return switch (backend) {
      case "postgres" ->
          PostgresFencing.builder(ledgerDatabase).schema(address).build().ownership();
      case "etcd" -> EtcdOwnership.builder(address.split(",")).build();
      case "zookeeper" ->
          ZooKeeperOwnership.builder(address).sessionTimeout(Duration.ofSeconds(2)).build();
      default ->
          throw new IllegalArgumentException(
              "coordination must be postgres:<schema>, etcd:<endpoints> or zookeeper:<hosts>, but was '"
                  + spec
                  + "'");
    };
  }
}
