package dev.fencing.http;

import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.contract.FencedReceiverContract;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The receiver contract, kept through the network: a client of a server of a PostgreSQL one. */
@FencingDatabase
class HttpReceiverContractTest extends FencedReceiverContract {

  private static final byte[] KEY =
      "a shared key of at least 32 bytes, for tests".getBytes(StandardCharsets.UTF_8);

  private HttpReceiverServer server;
  private FencedReceiver client;

  @BeforeEach
  void serve(TestSchema schema) {
    FencedReceiver store =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .build()
            .receiver("contract");
    server = HttpReceiverServer.builder(store).sharedKey(KEY).start();
    client =
        HttpReceiverClient.builder(server.uri(), KEY).firstBackoff(Duration.ofMillis(10)).build();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Override
  protected FencedReceiver receiver() {
    return client;
  }
}
