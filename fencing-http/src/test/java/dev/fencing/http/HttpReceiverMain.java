package dev.fencing.http;

import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.io.IOException;
import java.util.HexFormat;
import javax.sql.DataSource;

/**
 * The PostgreSQL receiver behind HTTP, in a process of its own: prints {@code listening <uri>} and
 * serves until its standard input closes.
 *
 * <pre>HttpReceiverMain jdbc-url user password schema shared-key-hex</pre>
 */
public final class HttpReceiverMain {

  private HttpReceiverMain() {}

  public static void main(String[] args) throws IOException {
    DataSource database =
        new PostgresFixture.Database(args[0], args[1], args[2], "arguments").dataSource();
    try (HttpReceiverServer server =
        HttpReceiverServer.builder(
                PostgresFencing.builder(database).schema(args[3]).build().receiver("default"))
            .sharedKey(HexFormat.of().parseHex(args[4]))
            .port(0)
            .start()) {
      System.out.println("listening " + server.uri());
      System.out.flush();
      while (System.in.read() >= 0) {
        // serve until the test closes our input (or kills us)
      }
    }
    System.exit(0);
  }
}
