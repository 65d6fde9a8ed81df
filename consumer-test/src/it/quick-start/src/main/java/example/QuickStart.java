package example;

import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import java.time.Duration;
import javax.sql.DataSource;

/** The README's quick start: what lies between the markers is the README's block, line for line. */
public final class QuickStart {

  private QuickStart() {}

  /** Runs the quick start against {@code dataSource}, printing the commit's outcome. */
  public static void run(DataSource dataSource) {
    // README quick-start: begin
    FencedQueue queue = PostgresFencing.builder(dataSource).schema("jobs").build().queue();
    long id = queue.enqueue("emails", "{\"to\": \"ada@example.com\"}");

    // the claim takes a new, larger epoch and a lease judged on the database's clock
    Job job = queue.claim("emails", "worker-1", Duration.ofSeconds(30)).orElseThrow();
    // the commit is a compare-and-set on owner and epoch: a zombie's late commit is refused
    FencedOutcome.Accepted done = queue.complete(job.lease(), "{\"sent\": true}");
    System.out.println("job " + id + " claimed at " + job.epoch() + ": " + done);
    // README quick-start: end
  }
}
