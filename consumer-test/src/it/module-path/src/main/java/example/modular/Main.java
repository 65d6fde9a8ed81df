package example.modular;

import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/** Installs the schema, enqueues, claims and completes a job, and prints the outcome. */
public final class Main {

  private Main() {}

  /** Arguments: a JDBC URL with its credentials, a schema. */
  public static void main(String[] args) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(args[0]);
    try (PostgresFencing fencing = PostgresFencing.builder(dataSource).schema(args[1]).build()) {
      FencedQueue queue = fencing.queue();
      queue.enqueue("emails", "{}");
      Job job = queue.claim("emails", "worker-1", Duration.ofSeconds(30)).orElseThrow();
      FencedOutcome.Accepted done = queue.complete(job.lease(), "{}");
      System.out.println(Main.class.getModule().getName() + ": " + done);
    }
  }
}
