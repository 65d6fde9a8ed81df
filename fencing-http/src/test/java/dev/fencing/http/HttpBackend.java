package dev.fencing.http;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.process.FencingBackend;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import javax.sql.DataSource;

/**
 * The PostgreSQL queue, and a receiver in another process reached over HTTP: the address and the
 * shared key are read from {@link #addressFile(String)}, which the test writes after starting the
 * receiver's process.
 */
public class HttpBackend implements FencingBackend {

  /** Where the receiver's URI and shared key (hex), a line each, are for {@code schema}. */
  static Path addressFile(String schema) {
    return Path.of(
        System.getProperty("java.io.tmpdir"), "fencing-http-receiver-" + schema + ".txt");
  }

  @Override
  public FencedQueue queue(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource).schema(schema).build().queue();
  }

  @Override
  public FencedReceiver receiver(DataSource dataSource, String schema) {
    try {
      List<String> lines = Files.readAllLines(addressFile(schema));
      return HttpReceiverClient.builder(
              URI.create(lines.get(0)), HexFormat.of().parseHex(lines.get(1)))
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException("no HTTP receiver address for schema " + schema, e);
    }
  }
}
