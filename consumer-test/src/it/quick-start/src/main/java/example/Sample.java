package example;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.JobType;
import dev.fencing.OutboxMessage;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.HandlerResult;
import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Missed;
import dev.fencing.schedule.Schedule;
import java.time.Duration;

public class Sample {
  record SendEmail(String to) {} // a job's payload, JSON in the store (fencing-jackson)
  record Sent(String to, long epoch) {} // its result

  static final JobType<SendEmail, Sent> EMAILS = JobType.of("emails", SendEmail.class, Sent.class);

  public static void main(String[] args) throws Exception {
    HikariDataSource dataSource = new HikariDataSource();
    dataSource.setJdbcUrl(System.getenv("JDBC_URL")); // jdbc:postgresql://host/db?user=..&password=..
    dataSource.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    try (dataSource;
        PostgresFencing fencing = PostgresFencing.builder(dataSource).schema("jobs").build()) {
      fencing.queue().enqueue(EMAILS, new SendEmail("ada@example.com")); // build() migrated the schema
      fencing.queue().enqueue("emails", "[1]"); // JSON but no SendEmail: its job ends FAILED at once

      try (FencedWorkers workers = FencedWorkers.builder(fencing.queue()) // the one worker door
          .owner("worker-1")
          .receiver(fencing.receiver("mailer")) // each result delivered with its job id + epoch
          .queue(EMAILS, (job, cancellation) -> new Sent(job.payload().to(), job.epoch().value()),
              q -> q.concurrency(8).leaseLength(Duration.ofSeconds(30))) // claim, renew, commit
          .queue("thumbnails", (job, cancellation) -> "{\"done\": true}") // JSON text as it is
          .outboxQueue("invoices", (job, cancellation) -> HandlerResult.of("{}", // committed with it
              new OutboxMessage("ledger", "invoice-" + job.id(), job.payload())), q -> {})
          .relay(fencing.outbox(), "ledger", fencing.receiver("ledger")) // at least once, at its epoch
          .scheduler(FencedScheduler.builder(fencing.schedules()) // one job per slot, fleet-wide
              .schedule(Schedule.builder("sweep").queue("thumbnails").cron("0 3 * * *")
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
