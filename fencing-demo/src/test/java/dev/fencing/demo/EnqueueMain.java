package dev.fencing.demo;

import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Enqueues jobs through the {@link PostgresBackend} that comes first on its class path, in a JVM of
 * its own. {@link RollingUpgradeTest} runs it on an earlier build's class path (this class's own
 * directory after it), so that the earlier build installs the schema and writes the jobs, as its
 * producers did.
 *
 * <p>Arguments: JDBC URL, user, password, schema, then pairs of queue and count. Prints {@code ok
 * library LOCATION} (the jar or directory {@code PostgresFencing} was loaded from), then {@code ok
 * enqueued QUEUE ID,ID,...} per pair, or {@code error ...}.
 */
public final class EnqueueMain {

  private EnqueueMain() {}

  /** Enqueues {@code {"n": i}} for i from 0 to each count - 1 and exits. */
  public static void main(String[] args) throws Exception {
    try {
      var database = new PostgresFixture.Database(args[0], args[1], args[2], "producer");
      FencedQueue queue = new PostgresBackend().queue(database.dataSource(), args[3]);
      System.out.println(
          "ok library "
              + Path.of(
                  PostgresFencing.class
                      .getProtectionDomain()
                      .getCodeSource()
                      .getLocation()
                      .toURI()));
      for (int at = 4; at + 1 < args.length; at += 2) {
        List<String> payloads =
            IntStream.range(0, Integer.parseInt(args[at + 1]))
                .mapToObj(i -> "{\"n\": " + i + "}")
                .toList();
        List<Long> ids = queue.enqueueAll(args[at], payloads);
        System.out.println(
            "ok enqueued "
                + args[at]
                + " "
                + ids.stream().map(String::valueOf).collect(Collectors.joining(",")));
      }
    } catch (RuntimeException e) {
      System.out.println("error " + e.toString().replace('\n', ' '));
    }
    System.exit(0);
  }
}
