package dev.fencing.zookeeper;

import dev.fencing.testkit.process.OwnershipBackend;
import dev.fencing.testkit.property.OwnershipSafetyProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;

/** The test kit's producer property suite, on a ZooKeeper server process. */
class ZooKeeperProducerPropertiesTest extends OwnershipSafetyProperties {

  private static ZooKeeperProcesses server;

  @Override
  protected Class<? extends OwnershipBackend> backend() {
    return ZooKeeperPropertiesBackend.class;
  }

  /**
   * 450 ms after the last short lease (300 ms) was granted: its end is computed on this machine's
   * clock before the node is written, so 150 ms of margin remain; the default of three short leases
   * spent half an interleaving's time asleep.
   */
  @Override
  protected Duration leasesRunOut() {
    return Duration.ofMillis(450);
  }

  @Override
  protected synchronized String address() {
    if (server == null) {
      try {
        server = ZooKeeperProcesses.standalone("properties");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return server.connectString();
  }

  @AfterAll
  static void stopServer() {
    stopProducers();
    if (server != null) {
      server.close();
      server = null;
    }
  }
}
