package example;

import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobType;
import dev.fencing.postgres.PostgresFencing;
import java.time.Duration;
import javax.sql.DataSource;

/** The README's quick start: what lies between the markers is the README's block, line for line. */
public final class QuickStart {

  private QuickStart() {}

  /** Runs the quick start against {@code dataSource}, printing the commit's outcome. */
  public static void run(DataSource dataSource) {
    // README quick-start: begin
    record SendEmail(String to) {} // the payload and the result, JSON in the store
    record Sent(long epoch) {}
    JobType<SendEmail, Sent> emails = JobType.of("emails", SendEmail.class, Sent.class);

    FencedQueue queue = PostgresFencing.builder(dataSource).schema("jobs").build().queue();
    long id = queue.enqueue(emails, new SendEmail("ada@example.com"));

    // the claim takes a new, larger epoch and a lease judged on the database's clock
    Job job = queue.claim("emails", "worker-1", Duration.ofSeconds(30)).orElseThrow();
    SendEmail email = emails.decodePayload(queue.codec(), job.payload());
    Sent sent = new Sent(job.epoch().value()); // send it, passing the epoch on
    // the commit is a compare-and-set on owner and epoch: a zombie's late commit is refused
    FencedOutcome.Accepted done =
        queue.complete(job.lease(), emails.encodeResult(queue.codec(), sent));
    System.out.println(email + " claimed at " + job.epoch() + ": " + done);
    System.out.println("job " + id + ": " + queue.result(emails, id).orElseThrow());
    // README quick-start: end
  }
}
