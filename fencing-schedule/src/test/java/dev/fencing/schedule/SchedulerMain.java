package dev.fencing.schedule;

import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A scheduler JVM: runs {@link #TICKS} on the given schema until told {@code stop}; {@code stats}
 * prints its counts. Arguments: JDBC URL, user, password, schema, name, pause before each advance
 * in milliseconds (0: none; see {@link PausingStore}), engine ({@link PostgresFencing.Engine}).
 */
public final class SchedulerMain {

  /** A slot every second; nothing counts as missed for 30 s. */
  static final Schedule TICKS =
      Schedule.builder("ticks")
          .queue("ticks")
          .every(Duration.ofSeconds(1))
          .missed(Missed.runAll(100))
          .grace(Duration.ofSeconds(30))
          .build();

  private SchedulerMain() {}

  public static void main(String[] args) throws Exception {
    PostgresFixture.Database db = new PostgresFixture.Database(args[0], args[1], args[2], "parent");
    PostgresFencing fencing =
        PostgresFencing.builder(db.dataSource())
            .schema(args[3])
            .engine(PostgresFencing.Engine.valueOf(args[6]))
            .install(false)
            .build();
    FencedScheduler scheduler =
        FencedScheduler.builder(
                new PausingStore(fencing.schedules(), Long.parseLong(args[5]), System.out))
            .name(args[4])
            .schedule(TICKS)
            .pollInterval(Duration.ofMillis(250))
            .build();
    scheduler.start();
    say("ready");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.equals("stats")) {
        SchedulerStats s = scheduler.stats();
        say("stats " + s.enqueued() + " " + s.skipped() + " " + s.taken() + " " + s.failures());
      } else if (line.equals("stop")) {
        scheduler.close();
        SchedulerStats s = scheduler.stats();
        say("stopped " + s.enqueued() + " " + s.skipped() + " " + s.taken() + " " + s.failures());
        return;
      }
    }
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
