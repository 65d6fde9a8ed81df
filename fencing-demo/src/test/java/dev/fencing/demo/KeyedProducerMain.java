package dev.fencing.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.Enqueued;
import dev.fencing.FencedQueue;
import dev.fencing.KeyedJob;
import dev.fencing.postgres.PostgresFencing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A producer process: enqueues {@code total} keyed jobs ({@code key-0} ...) in batches, retrying
 * every failed call until it returns, as a producer should once its enqueues are keyed. Prints
 * {@code progress N} after each batch and, at the end, {@code done} with what the calls reported.
 *
 * <p>Arguments: url, user, password, schema, queue, total, batch.
 */
public final class KeyedProducerMain {

  /** Every producer connection's {@code application_name}, so a test can terminate them. */
  public static final String APPLICATION_NAME = "keyed_producer";

  private KeyedProducerMain() {}

  public static void main(String[] args) throws InterruptedException {
    String schema = args[3];
    String queueName = args[4];
    int total = Integer.parseInt(args[5]);
    int batch = Integer.parseInt(args[6]);
    try (HikariDataSource pool = pool(args[0], args[1], args[2])) {
      // no retries inside the library: every failure reaches this loop, which retries it blindly
      FencedQueue queue =
          PostgresFencing.builder(pool)
              .schema(schema)
              .install(false)
              .transientRetries(0)
              .build()
              .queue();
      long created = 0;
      long existed = 0;
      long failedCalls = 0;
      long idSum = 0;
      for (int from = 0; from < total; from += batch) {
        List<KeyedJob> jobs = new ArrayList<>(batch);
        for (int i = from; i < Math.min(total, from + batch); i++) {
          jobs.add(new KeyedJob("key-" + i, "{\"i\": " + i + "}"));
        }
        List<Enqueued> out = null;
        while (out == null) {
          try {
            out = queue.enqueueKeyed(queueName, jobs);
          } catch (RuntimeException e) {
            failedCalls++;
            System.out.println("failed " + e.getClass().getSimpleName() + ": " + firstLine(e));
            Thread.sleep(50);
          }
        }
        for (Enqueued e : out) {
          idSum += e.id();
          if (e.created()) {
            created++;
          } else {
            existed++;
          }
        }
        System.out.println("progress " + Math.min(total, from + batch));
      }
      System.out.println(
          "done created="
              + created
              + " existed="
              + existed
              + " failedCalls="
              + failedCalls
              + " idSum="
              + idSum);
    }
  }

  private static String firstLine(Throwable e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  private static HikariDataSource pool(String url, String user, String password) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    if (!user.isEmpty()) {
      config.setUsername(user);
    }
    if (!password.isEmpty()) {
      config.setPassword(password);
    }
    config.addDataSourceProperty("ApplicationName", APPLICATION_NAME);
    config.setMaximumPoolSize(2);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(Duration.ofSeconds(5).toMillis());
    config.setInitializationFailTimeout(-1);
    config.setPoolName("keyed-producer");
    // named, not detected: HikariCP detects the default isolation on its first connection, and when
    // a
    // fault closes that connection right then, it sets -1 on every later one, which PgJDBC refuses
    config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    return new HikariDataSource(config);
  }
}
