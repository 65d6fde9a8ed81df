package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedRuntime;
import dev.fencing.testkit.PostgresFixture;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * One worker process of {@link ProcessScaling}: a {@link FencedRuntime} with handler threads doing
 * no-op jobs. Prints {@code ready}, starts on the line {@code go}, runs for the given time, then
 * prints {@code done N} with the number of committed jobs.
 *
 * <p>Arguments: JDBC URL, user, password, schema, queue, owner, threads, batch, milliseconds.
 */
public final class PoolWorkerMain {

  private PoolWorkerMain() {}

  public static void main(String[] args) throws Exception {
    PostgresFixture.Database db = new PostgresFixture.Database(args[0], args[1], args[2], "bench");
    int threads = Integer.parseInt(args[6]);
    int batch = Integer.parseInt(args[7]);
    long millis = Long.parseLong(args[8]);
    try (HikariDataSource ds = BenchDatabase.pool(db, 3)) {
      FencedQueue queue = PostgresFencing.builder(ds).schema(args[3]).install(false).build();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      System.out.println("ready");
      System.out.flush();
      if (!"go".equals(in.readLine())) {
        return;
      }
      long committed;
      try (FencedRuntime runtime =
          FencedRuntime.builder(queue, AcceptingReceiver.INSTANCE)
              .queue(args[4])
              .owner(args[5])
              .concurrency(threads)
              .prefetch(4 * batch)
              .batchSize(batch)
              .handler((job, cancellation) -> "{}")
              .start()) {
        Thread.sleep(millis);
        runtime.close();
        committed = runtime.stats().completed();
      }
      System.out.println("done " + committed);
    }
  }
}
