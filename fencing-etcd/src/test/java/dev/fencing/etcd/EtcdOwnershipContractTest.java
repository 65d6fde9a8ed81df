package dev.fencing.etcd;

import dev.fencing.ResourceOwnership;
import dev.fencing.testkit.contract.ResourceOwnershipContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The shared contract against one real etcd member. */
class EtcdOwnershipContractTest extends ResourceOwnershipContract {

  private static EtcdCluster etcd;

  @BeforeAll
  static void startEtcd() {
    etcd = EtcdCluster.start(1);
  }

  @AfterAll
  static void stopEtcd() {
    if (etcd != null) {
      etcd.close();
    }
  }

  @Override
  protected ResourceOwnership open() {
    return EtcdOwnership.builder(etcd.endpoints()).build();
  }

  /** etcd grants whole seconds, and at least its minimum TTL (1 s with these timings). */
  @Override
  protected Duration shortLease() {
    return Duration.ofSeconds(1);
  }

  /** The leader looks for expired leases every 500 ms; a revoke deletes the key in one write. */
  @Override
  protected Duration lapseBound() {
    return Duration.ofSeconds(5);
  }
}
