package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.FencedWorkerPool;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.PostgresFixture;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One worker process of {@link ProcessScaling}: a {@link FencedWorkerPool} with handler threads
 * doing no-op jobs. Prints {@code ready}, starts on the line {@code go}, runs for the given time,
 * then prints {@code done N} with the number of committed jobs.
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
      try (FencedWorkerPool pool =
          FencedWorkerPool.builder(queue).queue(args[4]).owner(args[5]).batchSize(batch).start()) {
        long end = System.nanoTime() + Duration.ofMillis(millis).toNanos();
        List<Thread> handlers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          handlers.add(Thread.ofPlatform().start(() -> handle(pool, end)));
        }
        for (Thread handler : handlers) {
          handler.join();
        }
        committed = pool.stats().committed();
        pool.close();
        committed = pool.stats().committed();
      }
      System.out.println("done " + committed);
    }
  }

  private static void handle(FencedWorkerPool pool, long end) {
    while (System.nanoTime() < end) {
      Optional<Job> job = pool.next(Duration.ofMillis(50));
      job.ifPresent(j -> pool.complete(j, "{}"));
    }
  }
}
