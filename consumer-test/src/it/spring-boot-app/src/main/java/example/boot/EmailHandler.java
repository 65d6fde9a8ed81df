package example.boot;

import dev.fencing.JobType;
import dev.fencing.runtime.Cancellation;
import dev.fencing.runtime.JobContext;
import dev.fencing.spring.QueueHandler;
import org.springframework.stereotype.Component;

@Component
class EmailHandler implements QueueHandler<SendEmail, Sent> {
  static final JobType<SendEmail, Sent> EMAILS = JobType.of("emails", SendEmail.class, Sent.class);

  @Override
  public JobType<SendEmail, Sent> type() {
    return EMAILS;
  }

  @Override
  public Sent handle(JobContext<SendEmail> job, Cancellation cancellation) {
    // send job.payload(), passing job.epoch() on; committed only while this process holds the lease
    return new Sent(job.payload().to(), job.epoch().value());
  }
}
