package dev.fencing.cli;

import dev.fencing.cli.internal.CancelCommand;
import dev.fencing.cli.internal.CliException;
import dev.fencing.cli.internal.ConsoleCommand;
import dev.fencing.cli.internal.Durations;
import dev.fencing.cli.internal.EnqueueCommand;
import dev.fencing.cli.internal.FailCommand;
import dev.fencing.cli.internal.JobCommand;
import dev.fencing.cli.internal.LimitsCommand;
import dev.fencing.cli.internal.MigrateCommand;
import dev.fencing.cli.internal.PurgeCommand;
import dev.fencing.cli.internal.QueuesCommand;
import dev.fencing.cli.internal.RequeueCommand;
import dev.fencing.cli.internal.SchedulesCommand;
import dev.fencing.cli.internal.SchemaCommand;
import dev.fencing.cli.internal.TuneCommand;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code fencing} command: look inside a fencing schema and repair jobs from the terminal.
 *
 * <pre>
 * java -jar fencing-cli.jar queues --url jdbc:postgresql://db/app --schema jobs
 * java -jar fencing-cli.jar job 42
 * java -jar fencing-cli.jar enqueue reminders '{"to":"ann"}' --delay 24h --priority 5
 * java -jar fencing-cli.jar requeue 42
 * java -jar fencing-cli.jar cancel 42 --reason "not needed"
 * java -jar fencing-cli.jar limits exports --max-running 5
 * java -jar fencing-cli.jar schedules --next 3
 * java -jar fencing-cli.jar schema
 * java -jar fencing-cli.jar migrate
 * java -jar fencing-cli.jar console --port 8081
 * </pre>
 *
 * <p>Exit codes: see {@link ExitCode}.
 */
@Command(
    name = "fencing",
    mixinStandardHelpOptions = true,
    version = "fencing 0.1.0",
    description = "Inspect and operate a fencing job queue on PostgreSQL.",
    subcommands = {
      QueuesCommand.class,
      JobCommand.class,
      EnqueueCommand.class,
      RequeueCommand.class,
      FailCommand.class,
      CancelCommand.class,
      PurgeCommand.class,
      LimitsCommand.class,
      SchedulesCommand.class,
      SchemaCommand.class,
      MigrateCommand.class,
      TuneCommand.class,
      ConsoleCommand.class
    })
public final class FencingCli implements Runnable {

  @CommandLine.Spec private CommandLine.Model.CommandSpec spec;

  private FencingCli() {}

  /** Runs the command line and exits with its code. */
  public static void main(String[] args) {
    System.exit(
        execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /**
   * Runs the command line in this JVM, writing to {@code out} and {@code err}.
   *
   * @return the exit code, one of the constants of {@link ExitCode}
   */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    quietLogs();
    CommandLine cli = new CommandLine(new FencingCli());
    cli.setOut(out).setErr(err);
    cli.registerConverter(Duration.class, new Durations.Converter());
    cli.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          if (e instanceof CliException c) {
            err.println("fencing: " + c.getMessage());
            err.flush();
            return c.exitCode();
          }
          if (e instanceof IllegalArgumentException) {
            err.println("fencing: " + e.getMessage());
            err.flush();
            return ExitCode.USAGE;
          }
          throw e;
        });
    int code = cli.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  private static void quietLogs() {
    // SLF4J's own notices (a second binding on a class path the user extended) are not the
    // command's output; the library's lines go to slf4j-simple, on standard error.
    if (System.getProperty("slf4j.internal.verbosity") == null) {
      System.setProperty("slf4j.internal.verbosity", "ERROR");
    }
  }
}
