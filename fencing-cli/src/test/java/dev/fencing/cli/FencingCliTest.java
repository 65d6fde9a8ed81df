package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobOptions;
import dev.fencing.KeyedJob;
import dev.fencing.Lease;
import dev.fencing.QueueLimits;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Missed;
import dev.fencing.schedule.Schedule;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.db.TestSchema;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every command and every error of the CLI, in this JVM, on a real PostgreSQL. */
@FencingDatabase
class FencingCliTest {

  /** The schema version this build installs. */
  private static final int LATEST = dev.fencing.postgres.PostgresFencing.schemaVersion();

  private static final Duration SHORT = Duration.ofMillis(150);

  /** What one run printed and returned. */
  record Run(int code, String out, String err) {}

  @Test
  void queuesListsEachQueueWithItsCountsByState(TestSchema schema) {
    FencedQueue queue = queue(schema, 1);
    queue.enqueueAll("mail", List.of("{}", "{}", "{}"));
    queue.enqueue("pdf", "{}");
    queue.claim("mail", "w1", Duration.ofMinutes(1)).orElseThrow();
    queue.fail(
        queue.claim("pdf", "w1", Duration.ofMinutes(1)).orElseThrow().lease(), "x", Duration.ZERO);

    Run run = run(schema, "queues");

    assertThat(run.code()).isZero();
    assertThat(run.out())
        .isEqualTo(
            """
            QUEUE  PENDING  RUNNING  FAILED
            mail         2        1       0
            pdf          0        0       1
            """);
    assertThat(run(schema, "queues", "--completed").out())
        .contains("COMPLETED")
        .contains("mail         2        1       0          0");
  }

  @Test
  void jobShowsWhoHeldWhichEpochAfterAZombieTakeover(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema, 5);
    long id = queue.enqueue("q", "{\"n\": 1}");
    Job zombie = queue.claim("q", "w1", SHORT).orElseThrow();
    Thread.sleep(300);
    queue.claim("q", "w2", SHORT).orElseThrow();
    Thread.sleep(300);
    queue.claim("q", "w2", Duration.ofMinutes(1)).orElseThrow();
    assertThatThrownBy(() -> queue.complete(zombie.lease(), "{}"))
        .isInstanceOf(FencedOffException.class);

    Run run = run(schema, "job", Long.toString(id));

    assertThat(run.code()).isZero();
    assertThat(run.out())
        .startsWith("job " + id + " in queue q (schema " + schema.name() + ")\n")
        .contains("state           running\n")
        .contains("epoch           3\n")
        .contains("expiries        2\n")
        .contains("payload         {\"n\": 1}\n")
        .contains("priority        0\n")
        .contains("group           -\n")
        .contains(
            """
            epoch history (last 3 claims)
            EPOCH  OWNER
                1  w1
                2  w2
                3  w2
            """)
        .contains("outbox messages: none\n\nrefused writes (newest first)\n")
        .containsPattern(
            "\n +1 +w1 +complete +Superseded +\\S+ +epoch 1 superseded by epoch 3 held by w2\n");
    long keyed =
        queue
            .enqueue(
                "q", new KeyedJob("order-7", "{}", JobOptions.ofPriority(3).withGroup("tenant-1")))
            .id();
    assertThat(run(schema, "job", Long.toString(keyed)).out())
        .contains("priority        3\n")
        .contains("group           tenant-1\n")
        .contains("key             order-7\n");
  }

  @Test
  void requeueAfterAFailureLetsTheNextClaimTakeALargerEpoch(TestSchema schema) {
    FencedQueue queue = queue(schema, 1);
    long id = queue.enqueue("q", "{}");
    Job first = queue.claim("q", "w1", Duration.ofMinutes(1)).orElseThrow();
    queue.fail(first.lease(), "boom", Duration.ZERO);

    Run run = run(schema, "requeue", Long.toString(id));

    assertThat(run.code()).isZero();
    assertThat(run.out())
        .startsWith("requeued job " + id + ": pending, claimable now\n")
        .contains("state           pending\n")
        .contains("attempts        0 of 1\n")
        .contains("last event      requeued\n");
    Job again = queue.claim("q", "w2", Duration.ofMinutes(1)).orElseThrow();
    assertThat(again.epoch().value()).isGreaterThan(first.epoch().value());
    assertThatThrownBy(() -> queue.complete(first.lease(), "{}"))
        .isInstanceOf(FencedOffException.class);
  }

  @Test
  void requeueOfARunningJobIsRefusedWithExitCode1(TestSchema schema) {
    FencedQueue queue = queue(schema, 5);
    long id = queue.enqueue("q", "{}");
    queue.claim("q", "w1", Duration.ofMinutes(1)).orElseThrow();

    Run run = run(schema, "requeue", Long.toString(id));

    assertThat(run.code()).isEqualTo(ExitCode.REFUSED);
    assertThat(run.err())
        .isEqualTo(
            "fencing: job "
                + id
                + " is running; only a failed job can be requeued; enqueue a new job to run a"
                + " completed one again\n");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void failOfARunningJobRefusesTheHoldersLaterCommit(TestSchema schema) {
    FencedQueue queue = queue(schema, 5);
    long id = queue.enqueue("q", "{}");
    Job held = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();

    Run run = run(schema, "fail", Long.toString(id), "--reason", "poison pill");

    assertThat(run.code()).isZero();
    assertThat(run.out())
        .startsWith("failed job " + id + "\n")
        .contains("state           failed\n")
        .contains("last error      poison pill\n");
    assertThatThrownBy(() -> queue.complete(held.lease(), "{\"late\": true}"))
        .isInstanceOf(FencedOffException.class);
    assertThat(run(schema, "fail", Long.toString(id), "--reason", "again").code())
        .isEqualTo(ExitCode.REFUSED);
    Run noReason = run(schema, "fail", Long.toString(id));
    assertThat(noReason.code()).isEqualTo(ExitCode.USAGE);
    assertThat(noReason.err()).contains("Missing required option: '--reason=<reason>'");
  }

  @Test
  void cancelOfARunningJobPrintsTheFenceAndRefusesTheHoldersLaterCommit(TestSchema schema) {
    FencedQueue queue = queue(schema, 5);
    long id = queue.enqueue("q", "{}");
    Lease held = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow().lease();
    String job = Long.toString(id);

    assertThat(run(schema, "cancel", job, "--reason", "not needed"))
        .isEqualTo(new Run(0, "cancelled job " + id + " (it was running); fence epoch 2\n", ""));
    assertThatThrownBy(() -> queue.complete(held, "{\"late\": true}"))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e -> assertThat(e.refusal()).isInstanceOf(FencedOutcome.Cancelled.class));
    assertThat(queue.find(id).orElseThrow().lastError()).isEqualTo("cancelled: not needed");
    assertThat(run(schema, "cancel", job))
        .isEqualTo(
            new Run(
                0, "job " + id + " was already cancelled (it was running); fence epoch 2\n", ""));
  }

  @Test
  void cancelOfAnEndedJobIsRefusedWithExitCode1AndOfAnUnknownOneWith5(TestSchema schema) {
    FencedQueue queue = queue(schema, 5);
    long id = queue.enqueue("q", "{}");
    queue.complete(queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow().lease(), "{}");

    Run ended = run(schema, "cancel", Long.toString(id));
    assertThat(ended.code()).isEqualTo(ExitCode.REFUSED);
    assertThat(ended.err())
        .isEqualTo("fencing: job " + id + " already ended completed; nothing was changed\n");
    Run unknown = run(schema, "cancel", "424242", "--reason", "x");
    assertThat(unknown.code()).isEqualTo(ExitCode.UNKNOWN_JOB);
    assertThat(unknown.err()).isEqualTo("fencing: no job 424242 in schema " + schema.name() + "\n");
    Run blank = run(schema, "cancel", Long.toString(id), "--reason", " ");
    assertThat(blank.code()).isEqualTo(ExitCode.USAGE);
    assertThat(blank.err()).contains("reason must be null or not blank");
  }

  @Test
  void purgeDeletesOldFinishedJobsOfTheQueue(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema, 5);
    long old = queue.enqueue("q", "{}");
    queue.complete(queue.claim("q", "w", Duration.ofMinutes(1)).orElseThrow().lease(), "{}");
    long young = queue.enqueue("q", "{}");
    queue.complete(queue.claim("q", "w", Duration.ofMinutes(1)).orElseThrow().lease(), "{}");
    execute(
        schema,
        // the default engine's row of a finished job
        "update fencing_append_done set finished_at = now() - interval '8 days' where job_id = "
            + old);

    Run run = run(schema, "purge", "--older-than", "7d", "--queue", "q");

    assertThat(run.code()).isZero();
    assertThat(run.out())
        .isEqualTo(
            "purged 1 job finished more than 7d ago from queue q in schema "
                + schema.name()
                + "\n");
    assertThat(run(schema, "job", Long.toString(old)).code()).isEqualTo(ExitCode.UNKNOWN_JOB);
    assertThat(run(schema, "job", Long.toString(young)).code()).isZero();
    Run bad = run(schema, "purge", "--older-than", "7 days");
    assertThat(bad.code()).isEqualTo(ExitCode.USAGE);
    assertThat(bad.err())
        .contains("a duration must be like 7d, 12h, 30m, 10s, 800ms or P7D, but was '7 days'");
    Run tooYoung = run(schema, "purge", "--older-than", "5s");
    assertThat(tooYoung.code()).isEqualTo(ExitCode.USAGE);
    assertThat(tooYoung.err())
        .isEqualTo("fencing: olderThan must be between 1 min and 3650 days, but was PT5S\n");
  }

  @Test
  void anUnknownJobIsNamedWithItsSchema(TestSchema schema) {
    queue(schema, 5);
    for (String command : List.of("job", "requeue")) {
      Run run = run(schema, command, "424242");
      assertThat(run.code()).isEqualTo(ExitCode.UNKNOWN_JOB);
      assertThat(run.err()).isEqualTo("fencing: no job 424242 in schema " + schema.name() + "\n");
    }
    assertThat(run(schema, "fail", "424242", "--reason", "x").err())
        .isEqualTo("fencing: no job 424242 in schema " + schema.name() + "\n");
  }

  @Test
  void aSchemaWithoutFencingTablesSaysHowToInstallThem(TestSchema schema) {
    Run run = run(schema, "queues");

    assertThat(run.code()).isEqualTo(ExitCode.NO_SCHEMA);
    assertThat(run.err())
        .startsWith(
            "fencing: schema "
                + schema.name()
                + " has no fencing tables; install them with PostgresFencing.builder(dataSource)");
  }

  @Test
  void schemaShowsItsVersionAndMigrateBringsOneFromBeforeVersionsUp(TestSchema schema)
      throws Exception {
    Run none = run(schema, "schema");
    assertThat(none.code()).isEqualTo(ExitCode.NO_SCHEMA);
    assertThat(none.out()).contains("not installed");
    assertThat(none.err()).contains("fencing migrate");

    Run fresh = run(schema, "migrate");
    assertThat(fresh.code()).as(fresh.err()).isZero();
    assertThat(fresh.out())
        .startsWith("schema " + schema.name() + ": new to version " + LATEST + "\n");
    Run status = run(schema, "schema");
    assertThat(status.code()).isZero();
    assertThat(status.out())
        .contains("SCHEMA")
        .containsPattern(schema.name() + " +" + LATEST + " +1 +APPEND_ONLY +" + LATEST);

    // what a build from before schema versions left: the commands refuse it, naming the versions
    execute(schema, "drop table fencing_schema_version");
    Run refused = run(schema, "queues");
    assertThat(refused.code()).isEqualTo(ExitCode.NO_SCHEMA);
    assertThat(refused.err()).contains("records no version").contains("needs version " + LATEST);
    Run old = run(schema, "schema");
    assertThat(old.code()).isEqualTo(ExitCode.NO_SCHEMA);
    assertThat(old.out()).containsPattern(schema.name() + " +none");

    Run up = run(schema, "migrate");
    assertThat(up.code()).as(up.err()).isZero();
    assertThat(up.out())
        .startsWith(
            "schema "
                + schema.name()
                + ": from no version (a build from before versions) to version "
                + LATEST
                + "\n");
    assertThat(run(schema, "migrate").out())
        .startsWith("schema " + schema.name() + " is at version " + LATEST + " already\n");
    assertThat(run(schema, "queues").code()).isZero();
  }

  @Test
  void anUnreachableDatabaseIsNamedWithoutItsPassword() {
    Run run =
        execute("queues", "--url", "jdbc:postgresql://127.0.0.1:1/app?user=ops&password=s3cret");

    assertThat(run.code()).isEqualTo(ExitCode.UNREACHABLE);
    assertThat(run.err())
        .startsWith(
            "fencing: cannot connect to jdbc:postgresql://127.0.0.1:1/app?user=ops&password=***: ")
        .doesNotContain("s3cret");
    Run notJdbc = execute("queues", "--url", "http://db.example/app");
    assertThat(notJdbc.code()).isEqualTo(ExitCode.UNREACHABLE);
    assertThat(notJdbc.err())
        .isEqualTo(
            "fencing: not a PostgreSQL JDBC URL: http://db.example/app (expected"
                + " jdbc:postgresql://host:port/database)\n");
  }

  @Test
  void badArgumentsGetPicocliMessagesAndExitCode2(TestSchema schema) {
    Run notANumber = run(schema, "job", "abc");
    assertThat(notANumber.code()).isEqualTo(ExitCode.USAGE);
    assertThat(notANumber.err())
        .contains("Invalid value for positional parameter at index 0 (<id>): 'abc' is not a long");
    Run unknown = execute("frobnicate");
    assertThat(unknown.code()).isEqualTo(ExitCode.USAGE);
    assertThat(unknown.err()).contains("Unmatched argument at index 0: 'frobnicate'");
    Run badSchema =
        execute(
            "queues",
            "--url",
            schema.database().jdbcUrl(),
            "--user",
            schema.database().user(),
            "--schema",
            "Robert'); drop table x;--");
    assertThat(badSchema.code()).isEqualTo(ExitCode.USAGE);
    assertThat(badSchema.err()).startsWith("fencing: schema must be");
  }

  @Test
  void limitsPrintsSetsAndClearsAQueuesRunningLimit(TestSchema schema) {
    FencedQueue queue = queue(schema, 1);
    String in = " (schema " + schema.name() + "): ";

    Run none = run(schema, "limits", "exports");
    assertThat(none.code()).as(none.err()).isZero();
    assertThat(none.out()).isEqualTo("queue exports" + in + "no limits\n");
    Run set = run(schema, "limits", "exports", "--max-running", "2");
    assertThat(set.code()).as(set.err()).isZero();
    assertThat(set.out()).isEqualTo("queue exports" + in + "at most 2 running (was: no limits)\n");
    assertThat(queue.limits("exports")).isEqualTo(QueueLimits.maxRunning(2));
    queue.enqueueAll("exports", List.of("{}", "{}", "{}"));
    assertThat(queue.claimBatch("exports", "w1", Duration.ofMinutes(1), 3)).hasSize(2);
    assertThat(run(schema, "limits", "exports").out())
        .isEqualTo("queue exports" + in + "at most 2 running\n");

    Run clear = run(schema, "limits", "exports", "--clear");
    assertThat(clear.code()).as(clear.err()).isZero();
    assertThat(clear.out())
        .isEqualTo("queue exports" + in + "no limits (was: at most 2 running)\n");
    assertThat(queue.limits("exports")).isEqualTo(QueueLimits.NONE);
  }

  @Test
  void limitsSetsRatesAndGroupLimits(TestSchema schema) {
    FencedQueue queue = queue(schema, 1);
    String in = " (schema " + schema.name() + "): ";

    Run set =
        run(
            schema,
            "limits",
            "exports",
            "--rate",
            "100/1s",
            "--group-max-running",
            "1",
            "--group-rate",
            "10/1m",
            "--fifo");
    assertThat(set.code()).as(set.err()).isZero();
    assertThat(set.out())
        .isEqualTo(
            "queue exports"
                + in
                + "100 started per 1s; per group: at most 1 under way, 10 started per 1m, FIFO"
                + " (was: no limits)\n");
    assertThat(queue.limits("exports"))
        .isEqualTo(
            QueueLimits.NONE
                .withRate(100, Duration.ofSeconds(1))
                .withMaxRunningPerGroup(1)
                .withRatePerGroup(10, Duration.ofMinutes(1))
                .withFifoPerGroup());
    Run replaced = run(schema, "limits", "exports", "--max-running", "3", "--fifo");
    assertThat(replaced.out())
        .startsWith("queue exports" + in + "at most 3 running; per group: FIFO");
    assertThat(queue.limits("exports")).isEqualTo(QueueLimits.maxRunning(3).withFifoPerGroup());

    Run aged = run(schema, "limits", "exports", "--aging", "30s");
    assertThat(aged.out()).startsWith("queue exports" + in + "priority aging 30s (was: ");
    assertThat(queue.limits("exports"))
        .isEqualTo(QueueLimits.NONE.withPriorityAging(Duration.ofSeconds(30)));
    Run badAging = execute("limits", "exports", "--aging", "soon");
    assertThat(badAging.code()).isEqualTo(ExitCode.USAGE);
    assertThat(badAging.err()).contains("a duration must be like");
    Run badRate = execute("limits", "exports", "--rate", "100");
    assertThat(badRate.code()).isEqualTo(ExitCode.USAGE);
    assertThat(badRate.err()).startsWith("fencing: rate must be written starts/window");
    Run clearAndSet = execute("limits", "exports", "--clear", "--fifo");
    assertThat(clearAndSet.code()).isEqualTo(ExitCode.USAGE);
  }

  @Test
  void enqueueTakesTheProducersOptions(TestSchema schema) {
    FencedQueue queue = queue(schema, 1);
    Run plain = run(schema, "enqueue", "emails", "{\"to\": \"ann\"}");
    assertThat(plain.code()).as(plain.err()).isZero();
    assertThat(plain.out()).matches("enqueued job \\d+ on queue emails\n");
    Run later =
        run(schema, "enqueue", "emails", "{}", "--delay", "1h", "--priority", "5", "--group", "c1");
    assertThat(later.code()).as(later.err()).isZero();
    assertThat(later.out()).contains("(JobOptions[delay=PT1H, priority=5, group='c1'])");
    Run keyed =
        run(schema, "enqueue", "emails", "{}", "--key", "k1", "--at", "2027-01-01T06:00:00Z");
    assertThat(keyed.out()).startsWith("enqueued job ");
    Run again = run(schema, "enqueue", "emails", "{}", "--key", "k1");
    assertThat(again.code()).isZero();
    assertThat(again.out()).startsWith("key 'k1' already names job ");

    List<Job> claimed = queue.claimBatch("emails", "w1", Duration.ofMinutes(1), 10);
    assertThat(claimed).extracting(Job::payload).containsExactly("{\"to\": \"ann\"}");

    Run both = execute("enqueue", "emails", "{}", "--delay", "1h", "--at", "2027-01-01T06:00:00Z");
    assertThat(both.code()).isEqualTo(ExitCode.USAGE);
    Run badPriority = execute("enqueue", "emails", "{}", "--priority", "11");
    assertThat(badPriority.code()).isEqualTo(ExitCode.USAGE);
    assertThat(badPriority.err()).startsWith("fencing: priority must be between -10 and 10");
  }

  @Test
  void limitsRefusesBadArgumentsBeforeReachingTheDatabase() {
    Run zero = execute("limits", "exports", "--max-running", "0");
    assertThat(zero.code()).isEqualTo(ExitCode.USAGE);
    assertThat(zero.err()).startsWith("fencing: maxRunning must be between 1 and 1000000");
    Run badQueue = execute("limits", "Exports", "--clear");
    assertThat(badQueue.code()).isEqualTo(ExitCode.USAGE);
    assertThat(badQueue.err()).startsWith("fencing: queue must be a plain identifier");
    Run both = execute("limits", "exports", "--clear", "--max-running", "3");
    assertThat(both.code()).isEqualTo(ExitCode.USAGE);
    assertThat(both.err()).contains("mutually exclusive");
    assertThat(execute("limits").code()).isEqualTo(ExitCode.USAGE);
  }

  @Test
  void tuneRecommendsTheShortestLeaseThatMeetsTheRule() {
    Run run = execute("tune", "--p50", "20ms", "--p99", "800ms", "--max", "2s");

    assertThat(run.code()).isZero();
    assertThat(run.out())
        .contains("LEASE  HEARTBEAT")
        .contains("RECOMMENDED: lease 5s, heartbeat 1.67s");
    Run needsLonger =
        execute("tune", "--p50", "1s", "--p99", "20s", "--max", "1m", "--leases", "1s,5s");
    assertThat(needsLonger.out())
        .contains("RECOMMENDED: none of the candidates; try a lease of at least 64s");
    Run bad = execute("tune", "--p50", "900ms", "--p99", "800ms", "--max", "2s");
    assertThat(bad.code()).isEqualTo(ExitCode.USAGE);
    assertThat(bad.err()).isEqualTo("fencing: p99 must be at least p50 (PT0.9S), but was PT0.8S\n");
  }

  @Test
  void theMainClassRunsInAChildProcessWithTheUrlFromTheEnvironment(TestSchema schema)
      throws Exception {
    FencedQueue queue = queue(schema, 5);
    queue.enqueue("mail", "{}");
    PostgresFixture.Database db = schema.database();
    List<String> command = new ArrayList<>();
    command.add(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of("-cp", System.getProperty("java.class.path"), FencingCli.class.getName()));
    command.addAll(List.of("queues", "--schema", schema.name()));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("FENCING_JDBC_URL", db.jdbcUrl());
    builder.environment().put("FENCING_JDBC_USER", db.user());
    builder.environment().put("FENCING_JDBC_PASSWORD", db.password());
    builder.redirectErrorStream(true);
    Process process = builder.start();
    try {
      String output = new String(process.getInputStream().readAllBytes());
      assertThat(process.waitFor()).as(output).isZero();
      assertThat(output)
          .contains("QUEUE  PENDING  RUNNING  FAILED\nmail         1        0       0\n");
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void schedulesListsEachScheduleWithItsMarkAndNextSlots(TestSchema schema) {
    PostgresFencing fencing =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    assertThat(run(schema, "schedules").out())
        .isEqualTo("no schedules in schema " + schema.name() + "\n");
    FencedScheduler.builder(fencing.schedules())
        .schedule(
            Schedule.builder("nightly")
                .revision(2)
                .queue("reports")
                .cron("0 3 * * *")
                .zone(java.time.ZoneId.of("Europe/Berlin"))
                .build())
        .schedule(
            Schedule.builder("ticks")
                .queue("ticks")
                .every(Duration.ofMinutes(15))
                .missed(Missed.runAll(4))
                .build())
        .build()
        .runRound();

    Run run = run(schema, "schedules", "--next", "2");

    assertThat(run.code()).isZero();
    String[] lines = run.out().split("\n");
    assertThat(lines[0]).matches("SCHEDULE +REV +QUEUE +TRIGGER +ZONE +MISSED +MARK +NEXT");
    assertThat(lines[1])
        .matches(
            "nightly +2 +reports +cron 0 3 \\* \\* \\* +Europe/Berlin +run once +\\S+Z +"
                + "\\S+T0[12]:00:00Z \\S+T0[12]:00:00Z");
    assertThat(lines[2])
        .matches(
            "ticks +1 +ticks +every 15m +Z +run all \\(cap 4\\) +\\S+Z +\\S+:[0-4][05]:00Z \\S+Z");
  }

  @Test
  void onASchemaOfTheUpdateInPlaceEngineTheCommandsReadAndChangeItsTables(TestSchema schema) {
    FencedQueue queue =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .engine(PostgresFencing.Engine.UPDATE_IN_PLACE)
            .maxAttempts(1)
            .build()
            .queue();
    queue.enqueueAll("mail", List.of("{}", "{}"));
    long failed = queue.enqueue("pdf", "{}");
    queue.claim("mail", "w1", Duration.ofMinutes(1)).orElseThrow();
    Job pdf = queue.claim("pdf", "w1", Duration.ofMinutes(1)).orElseThrow();
    queue.fail(pdf.lease(), "x", Duration.ZERO);

    assertThat(run(schema, "queues").out())
        .isEqualTo(
            """
            QUEUE  PENDING  RUNNING  FAILED
            mail         1        1       0
            pdf          0        0       1
            """);
    assertThat(run(schema, "requeue", Long.toString(failed)).code()).isZero();
    Job again = queue.claim("pdf", "w2", Duration.ofMinutes(1)).orElseThrow();
    assertThat(again.epoch().value()).isGreaterThan(pdf.epoch().value());
    assertThat(run(schema, "job", Long.toString(failed)).out()).contains("w2");
  }

  private static Run run(TestSchema schema, String... args) {
    PostgresFixture.Database db = schema.database();
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--url", db.jdbcUrl(), "--schema", schema.name()));
    if (!db.user().isEmpty()) {
      all.addAll(List.of("--user", db.user()));
    }
    if (!db.password().isEmpty()) {
      all.addAll(List.of("--password", db.password()));
    }
    return execute(all.toArray(String[]::new));
  }

  private static Run execute(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = FencingCli.execute(args, new PrintWriter(out), new PrintWriter(err));
    return new Run(code, out.toString(), err.toString());
  }

  private static FencedQueue queue(TestSchema schema, int maxAttempts) {
    return PostgresFencing.builder(schema.dataSource())
        .schema(schema.name())
        .maxAttempts(maxAttempts)
        .build()
        .queue();
  }

  private static void execute(TestSchema schema, String sql) throws Exception {
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("set search_path to \"" + schema.name() + "\"");
      s.execute(sql);
    }
  }
}
