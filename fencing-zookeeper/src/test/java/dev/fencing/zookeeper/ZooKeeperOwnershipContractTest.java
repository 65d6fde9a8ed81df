package dev.fencing.zookeeper;

import dev.fencing.ResourceOwnership;
import dev.fencing.testkit.contract.ResourceOwnershipContract;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract against a standalone ZooKeeper server process, or the server {@code
 * FENCING_ZOOKEEPER_CONNECT} names.
 */
class ZooKeeperOwnershipContractTest extends ResourceOwnershipContract {

  private static ZooKeeperProcesses server;
  private static String connect;

  @BeforeAll
  static void startServer() throws IOException {
    String given = System.getenv("FENCING_ZOOKEEPER_CONNECT");
    if (given != null && !given.isBlank()) {
      connect = given;
    } else {
      server = ZooKeeperProcesses.standalone("contract");
      connect = server.connectString();
    }
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected ResourceOwnership open() {
    return ZooKeeperOwnership.builder(connect)
        .root("/fencing-contract")
        .sessionTimeout(Duration.ofSeconds(2))
        .build();
  }
}
