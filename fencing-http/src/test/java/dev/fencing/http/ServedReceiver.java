package dev.fencing.http;

import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.TestSchema;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A PostgreSQL receiver, counted, behind a real server on loopback in this JVM, and a client for
 * it.
 */
abstract class ServedReceiver {

  static final byte[] KEY =
      "a shared key of at least 32 bytes, for tests".getBytes(StandardCharsets.UTF_8);

  FencedReceiver store;
  CountingReceiver counted;
  HttpReceiverServer server;
  FencedReceiver client;
  RawRequests raw;

  @BeforeEach
  void serve(TestSchema schema) {
    store =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .build()
            .receiver("default");
    counted = new CountingReceiver(store);
    server = configure(HttpReceiverServer.builder(counted).sharedKey(KEY)).start();
    client = clientBuilder().build();
    raw = new RawRequests(server.uri());
  }

  /** Lets a test class change the server's configuration. */
  HttpReceiverServer.Builder configure(HttpReceiverServer.Builder builder) {
    return builder;
  }

  HttpReceiverClient.Builder clientBuilder() {
    return HttpReceiverClient.builder(server.uri(), KEY).firstBackoff(Duration.ofMillis(10));
  }

  @AfterEach
  void stop() {
    server.close();
  }
}
