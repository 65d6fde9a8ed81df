package dev.fencing.spring.sample;

import dev.fencing.FencedQueue;
import dev.fencing.JobType;
import dev.fencing.runtime.Cancellation;
import dev.fencing.runtime.JobContext;
import dev.fencing.spring.QueueHandler;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

/** The README's sample application; {@code SampleApplicationTest} runs it. */
@SpringBootApplication
public class SampleApplication {

  public static void main(String[] args) {
    SpringApplication.run(SampleApplication.class, args);
  }
}

// README sample: begin
record SendEmail(String to) {} // JSON in the store, with the application's JsonMapper

record Sent(String to, long epoch) {}

@Component
class EmailHandler implements QueueHandler<SendEmail, Sent> {
  static final JobType<SendEmail, Sent> EMAILS = JobType.of("emails", SendEmail.class, Sent.class);

  public JobType<SendEmail, Sent> type() {
    return EMAILS;
  }

  public Sent handle(JobContext<SendEmail> job, Cancellation cancellation) {
    // send job.payload(), passing job.epoch() on; committed only while this process holds the lease
    return new Sent(job.payload().to(), job.epoch().value());
  }
}

@Service
class Signup {
  private final FencedQueue queue;

  Signup(FencedQueue queue) {
    this.queue = queue;
  }

  long register(String email) {
    return queue.enqueue(EmailHandler.EMAILS, new SendEmail(email));
  }
}
// README sample: end
