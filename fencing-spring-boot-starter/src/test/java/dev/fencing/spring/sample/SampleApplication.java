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
@Component
class EmailHandler implements QueueHandler<String, String> {
  public JobType<String, String> type() {
    return JobType.raw("emails");
  }

  public String handle(JobContext<String> job, Cancellation cancellation) {
    return "{\"sent\": true}"; // committed only while this process holds the job's lease
  }
}

@Service
class Signup {
  private final FencedQueue queue;

  Signup(FencedQueue queue) {
    this.queue = queue;
  }

  long register(String email) {
    return queue.enqueue("emails", "{\"to\": \"" + email + "\"}");
  }
}
// README sample: end
