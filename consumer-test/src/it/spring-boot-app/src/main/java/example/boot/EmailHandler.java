package example.boot;

import dev.fencing.Job;
import dev.fencing.runtime.Cancellation;
import dev.fencing.spring.QueueHandler;
import org.springframework.stereotype.Component;

@Component
class EmailHandler implements QueueHandler {
  @Override
  public String queue() {
    return "emails";
  }

  @Override
  public String handle(Job job, Cancellation cancellation) {
    return "{\"sent\": true}"; // committed only while this process holds the job's lease
  }
}
