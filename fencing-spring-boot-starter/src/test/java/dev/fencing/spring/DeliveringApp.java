package dev.fencing.spring;

import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.JobType;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.Cancellation;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.JobContext;
import dev.fencing.runtime.QueueStats;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * An application whose handler delivers each job to the receiver {@code mail} with the job's lease,
 * after a pause that ignores cancellation (the worst handler: it goes on after its lease is lost).
 * Run as a second JVM by {@link ZombieInstanceTest}: its arguments are the JDBC URL, user,
 * password, schema, owner and pause; it prints {@code ready}, each job it handles and delivers, and
 * answers {@code stats} and {@code exit} on standard input.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class DeliveringApp {

  /** The queue this application works on. */
  static final String QUEUE = "zombie";

  @Bean
  FencedReceiver mail(PostgresFencing fencing) {
    return fencing.receiver("mail");
  }

  @Bean
  QueueHandler delivering(
      FencedReceiver mail,
      @Value("${fencing.owner}") String owner,
      @Value("${test.pause}") Duration pause) {
    return new QueueHandler<String, String>() {
      @Override
      public JobType<String, String> type() {
        return JobType.raw(QUEUE);
      }

      @Override
      public String handle(JobContext<String> job, Cancellation cancellation) {
        print("handling " + job.id() + " " + job.epoch().value());
        sleepThroughInterrupts(pause);
        FencedOutcome outcome = mail.deliver(job.lease(), "{\"by\": \"" + owner + "\"}");
        print("delivered " + job.id() + " " + job.epoch().value() + " " + outcome);
        return "{\"by\": \"" + owner + "\"}";
      }
    };
  }

  /** Starts an instance in this JVM. */
  static ConfigurableApplicationContext start(List<String> properties) {
    return new SpringApplicationBuilder(DeliveringApp.class)
        .web(WebApplicationType.NONE)
        .properties(properties.toArray(String[]::new))
        .run();
  }

  /** The properties of an instance with {@code owner} and a handler pause. */
  static List<String> properties(
      String url, String user, String password, String schema, String owner, String pause) {
    List<String> props = new ArrayList<>(Apps.dataSource(url, user, password));
    props.add("fencing.schema=" + schema);
    props.add("fencing.owner=" + owner);
    props.add("fencing.queues." + QUEUE + ".lease=2s");
    props.add("fencing.maintenance.enabled=false");
    props.add("test.pause=" + pause);
    return props;
  }

  /** With a seventh argument, {@code fencing.virtual-threads} set to it (else the default). */
  private static List<String> withThreads(List<String> props, String[] args) {
    if (args.length > 6) {
      props.add("fencing.virtual-threads=" + args[6]);
    }
    return props;
  }

  public static void main(String[] args) throws Exception {
    try (ConfigurableApplicationContext app =
        start(
            withThreads(properties(args[0], args[1], args[2], args[3], args[4], args[5]), args))) {
      FencedWorkers runtime = app.getBean(ManagedWorkers.class).running().orElseThrow();
      print("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.equals("exit")) {
          break;
        }
        QueueStats s = runtime.stats(QUEUE);
        print(
            "stats completed="
                + s.completed()
                + " fencedOff="
                + s.fencedOff()
                + " abandoned="
                + s.abandoned()
                + " inFlight="
                + s.inFlight());
      }
    }
    print("closed");
  }

  /** Pauses, an interrupt (the runtime's cancellation) noted and kept but not obeyed. */
  private static void sleepThroughInterrupts(Duration pause) {
    long end = System.nanoTime() + pause.toNanos();
    boolean interrupted = false;
    while (end - System.nanoTime() > 0) {
      LockSupport.parkNanos(Math.min(end - System.nanoTime(), 10_000_000L));
      interrupted |= Thread.interrupted();
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static synchronized void print(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
