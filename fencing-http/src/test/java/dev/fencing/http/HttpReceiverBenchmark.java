package dev.fencing.http;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Deliveries per second at 1, 8 and 64 client threads, to the PostgreSQL receiver directly and
 * through the HTTP server and client on loopback; prints a Markdown table. Each thread delivers to
 * its own key at rising epochs, so every delivery is accepted and written.
 *
 * <p>Not a test: run it as a program (see docs/BENCHMARKS.md). {@code FENCING_JDBC_URL} chooses the
 * database, else an embedded PostgreSQL; the first argument, if given, is the seconds measured per
 * row (after as many seconds' warm-up).
 */
public final class HttpReceiverBenchmark {

  private static final byte[] KEY =
      "a shared key of at least 32 bytes, for the benchmark".getBytes(StandardCharsets.UTF_8);
  private static final int POOL = 16;

  private HttpReceiverBenchmark() {}

  private record Row(String path, int threads, double perSecond, double p50, double p99) {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    PostgresFixture.Database db = PostgresFixture.urlOrEmbedded();
    String schema = db.freshSchema("http_bench");
    FencedReceiver store =
        PostgresFencing.builder(db.pooledDataSource(POOL))
            .schema(schema)
            .build()
            .receiver("default");
    List<Row> rows = new ArrayList<>();
    try (HttpReceiverServer server = HttpReceiverServer.builder(store).sharedKey(KEY).start()) {
      FencedReceiver client = HttpReceiverClient.builder(server.uri(), KEY).build();
      for (int threads : new int[] {1, 8, 64}) {
        rows.add(run("postgres", store, threads, seconds));
        rows.add(run("http", client, threads, seconds));
      }
    } finally {
      db.dropSchema(schema);
    }
    System.out.println("| path | client threads | deliveries/s | p50 (ms) | p99 (ms) |");
    System.out.println("|---|---:|---:|---:|---:|");
    for (Row row : rows) {
      System.out.printf(
          Locale.ROOT,
          "| %s | %d | %,.0f | %.2f | %.2f |%n",
          row.path(),
          row.threads(),
          row.perSecond(),
          row.p50(),
          row.p99());
    }
    System.out.printf(
        Locale.ROOT,
        "%nSource: %s. %d s warm-up and %d s measured per row; store pool %d connections.%n",
        db.source(),
        seconds,
        seconds,
        POOL);
  }

  private static Row run(String path, FencedReceiver receiver, int threads, int seconds)
      throws InterruptedException {
    AtomicBoolean measuring = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    long[][] samples = new long[threads][];
    int[] counts = new int[threads];
    CountDownLatch done = new CountDownLatch(threads);
    for (int t = 0; t < threads; t++) {
      int thread = t;
      samples[t] = new long[1 << 20];
      Thread.ofPlatform()
          .start(
              () -> {
                String key = path + "-" + threads + "-" + thread;
                for (long epoch = 1; !stop.get(); epoch++) {
                  long start = System.nanoTime();
                  FencedOutcome outcome = receiver.deliver(key, Epoch.of(epoch), "{\"n\": 1}");
                  long took = System.nanoTime() - start;
                  if (!outcome.isAccepted()) {
                    throw new IllegalStateException("refused: " + outcome);
                  }
                  if (measuring.get() && counts[thread] < samples[thread].length) {
                    samples[thread][counts[thread]++] = took;
                  }
                }
                done.countDown();
              });
    }
    Thread.sleep(seconds * 1000L);
    measuring.set(true);
    long start = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    measuring.set(false);
    double elapsed = (System.nanoTime() - start) / 1e9;
    stop.set(true);
    done.await();
    long[] all = new long[Arrays.stream(counts).sum()];
    int at = 0;
    for (int t = 0; t < threads; t++) {
      System.arraycopy(samples[t], 0, all, at, counts[t]);
      at += counts[t];
    }
    Arrays.sort(all);
    return new Row(
        path,
        threads,
        all.length / elapsed,
        all[(int) (all.length * 0.50)] / 1e6,
        all[Math.min(all.length - 1, (int) (all.length * 0.99))] / 1e6);
  }
}
