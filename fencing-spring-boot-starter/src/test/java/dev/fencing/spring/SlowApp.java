package dev.fencing.spring;

import dev.fencing.JobType;
import dev.fencing.runtime.Cancellation;
import dev.fencing.runtime.JobContext;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** An application whose handler of queue {@code slow} sleeps {@code test.pause} per job. */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class SlowApp {

  /** The handler: sleeps (interruptibly), and records which jobs started and which finished. */
  public static final class Slow implements QueueHandler<String, String> {
    private final Duration pause;
    public final Set<Long> started = ConcurrentHashMap.newKeySet();
    public final Set<Long> finished = ConcurrentHashMap.newKeySet();

    Slow(Duration pause) {
      this.pause = pause;
    }

    @Override
    public JobType<String, String> type() {
      return JobType.raw("slow");
    }

    @Override
    public String handle(JobContext<String> job, Cancellation cancellation)
        throws InterruptedException {
      started.add(job.id());
      Thread.sleep(pause);
      finished.add(job.id());
      return "{\"done\": true}";
    }
  }

  @Bean
  Slow slow(@Value("${test.pause}") Duration pause) {
    return new Slow(pause);
  }
}
