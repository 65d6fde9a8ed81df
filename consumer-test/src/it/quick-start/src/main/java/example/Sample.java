package example;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedRuntime;
import java.time.Duration;

public class Sample {
  public static void main(String[] args) throws Exception {
    HikariDataSource dataSource = new HikariDataSource();
    dataSource.setJdbcUrl(System.getenv("JDBC_URL")); // jdbc:postgresql://host/db?user=..&password=..
    dataSource.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    try (dataSource;
        PostgresFencing fencing = PostgresFencing.builder(dataSource).schema("jobs").build()) {
      FencedQueue queue = fencing.queue(); // the schema was installed by build()
      FencedReceiver mailer = fencing.receiver("mailer");
      queue.enqueue("emails", "{\"to\": \"ada@example.com\"}");

      try (FencedRuntime runtime = FencedRuntime.builder(queue, mailer) // claim, renew, deliver, commit
          .queue("emails").owner("worker-1").concurrency(8).leaseLength(Duration.ofSeconds(30))
          .handler((job, cancellation) -> "{\"sent\": true}") // delivered with job id + epoch
          .onOutcome(outcome -> System.out.println(outcome)) // Completed, FencedOff, Failed, ...
          .start()) {
        System.in.read(); // until Enter; close(): stop claiming, drain, commit, release the rest
      }
    }
  }
}
