package dev.fencing.demo;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The worker of {@link SigtermUnderFullLoadDrainsTest}, set up as the README's Sample sets up a
 * worker in plain Java: a HikariCP pool, a {@code PostgresFencing} handle on the update-in-place
 * engine and a {@link FencedWorkers} door in one try-with-resources, and a main thread that waits
 * on its standard input. Its handler sleeps {@code handler ms} and returns; it prints {@code ready}
 * once started and {@code saturated} once every handler thread is running a job.
 *
 * <p>Arguments: JDBC URL, user, password, schema, queue, concurrency, handler ms, drain timeout ms,
 * and {@code hook} (the door drains on the JVM's shutdown, then closes the handle and the pool) or
 * {@code none}.
 */
public final class DrainWorkerMain {

  private DrainWorkerMain() {}

  public static void main(String[] args) throws Exception {
    int concurrency = Integer.parseInt(args[5]);
    long handlerMillis = Long.parseLong(args[6]);
    HikariDataSource dataSource = new HikariDataSource();
    dataSource.setJdbcUrl(args[0]);
    dataSource.setUsername(args[1]);
    dataSource.setPassword(args[2]);
    dataSource.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    PostgresFencing fencing =
        PostgresFencing.builder(dataSource)
            .schema(args[3])
            .install(false)
            .engine(PostgresFencing.Engine.UPDATE_IN_PLACE)
            .build();
    AtomicInteger running = new AtomicInteger();
    AtomicBoolean saturated = new AtomicBoolean();
    FencedWorkers.Builder builder =
        FencedWorkers.builder(fencing.queue())
            .owner("drain-worker")
            .drainTimeout(Duration.ofMillis(Long.parseLong(args[7])))
            .queue(
                args[4],
                (job, cancellation) -> {
                  if (running.incrementAndGet() >= concurrency
                      && saturated.compareAndSet(false, true)) {
                    print("saturated");
                  }
                  try {
                    Thread.sleep(handlerMillis);
                  } finally {
                    running.decrementAndGet();
                  }
                  return "{}";
                },
                q -> q.concurrency(concurrency).leaseLength(Duration.ofMinutes(5)));
    if (args[8].equals("hook")) {
      builder.drainOnShutdown(fencing, dataSource);
    }
    try (dataSource;
        fencing;
        FencedWorkers workers = builder.start()) {
      print("ready");
      System.in.read(); // as the README's Sample: until Enter, or until the JVM is told to end
    }
  }

  private static void print(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
