package dev.fencing.ledger;

import dev.fencing.etcd.EtcdCluster;
import dev.fencing.testkit.process.OwnershipBackend;
import dev.fencing.testkit.property.OwnershipSafetyProperties;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;

/**
 * The test kit's producer property suite, on an etcd process. etcd grants leases in whole seconds
 * (1 s at the least here), so an interleaving takes longer: a third of {@code
 * fencing.producer.tries} (5 in the short form of `verify`, 33 in -Pfull), of at most 20 steps.
 */
class EtcdProducerPropertiesTest extends OwnershipSafetyProperties {

  private static EtcdCluster etcd;

  @Override
  protected Class<? extends OwnershipBackend> backend() {
    return EtcdPropertiesBackend.class;
  }

  @Override
  protected synchronized String address() {
    if (etcd == null) {
      etcd = EtcdCluster.start(1);
    }
    return String.join(",", etcd.endpoints());
  }

  @Override
  protected Duration shortLease() {
    return Duration.ofSeconds(1);
  }

  @Override
  protected Duration leasesRunOut() {
    return Duration.ofMillis(2000);
  }

  @Override
  protected int maxSteps() {
    return 20;
  }

  @Override
  protected int tries() {
    return Math.max(1, super.tries() / 3);
  }

  @AfterAll
  static void stopServer() {
    stopProducers();
    if (etcd != null) {
      etcd.close();
      etcd = null;
    }
  }
}
