package example;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.OutboxMessage;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.HandlerResult;
import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Missed;
import dev.fencing.schedule.Schedule;
import java.time.Duration;

public class Sample {
  public static void main(String[] args) throws Exception {
    HikariDataSource dataSource = new HikariDataSource();
    dataSource.setJdbcUrl(System.getenv("JDBC_URL")); // jdbc:postgresql://host/db?user=..&password=..
    dataSource.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    try (dataSource;
        PostgresFencing fencing = PostgresFencing.builder(dataSource).schema("jobs").build()) {
      fencing.queue().enqueue("emails", "{\"to\": \"ada@example.com\"}"); // build() migrated the schema

      try (FencedWorkers workers = FencedWorkers.builder(fencing.queue()) // the one worker door
          .owner("worker-1")
          .receiver(fencing.receiver("mailer")) // each result delivered with its job id + epoch
          .queue("emails", (job, cancellation) -> "{\"sent\": true}",
              q -> q.concurrency(8).leaseLength(Duration.ofSeconds(30))) // claim, renew, commit
          .queue("thumbnails", (job, cancellation) -> "{\"done\": true}")
          .outboxQueue("invoices", (job, cancellation) -> HandlerResult.of("{}", // committed with it
              new OutboxMessage("ledger", "invoice-" + job.id(), job.payload())), q -> {})
          .relay(fencing.outbox(), "ledger", fencing.receiver("ledger")) // at least once, at its epoch
          .scheduler(FencedScheduler.builder(fencing.schedules()) // one job per slot, fleet-wide
              .schedule(Schedule.builder("digest").queue("emails").cron("0 8 * * *")
                  .missed(Missed.skip()).build())
              .build())
          .maintenance(fencing.maintenance().build(), Duration.ofMinutes(1)) // retention, VACUUM
          .onOutcome(outcome -> System.out.println(outcome)) // Completed, FencedOff, Failed, ...
          .drainOnShutdown(fencing, dataSource) // SIGTERM, Ctrl-C: drain, then close these two
          .start()) {
        System.in.read(); // until Enter; close(): stop claiming, drain, commit, release the rest
      }
    }
  }
}
