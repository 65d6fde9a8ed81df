package dev.fencing.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run of {@link EngineBenchmark}: its results, read from its JVM's output, and the CPU time its
 * JVM and the database's backends spent over the whole run ({@link RunCpu}; zero where not
 * watched).
 */
record EngineResult(
    String engine, List<String[]> windows, String[] summary, String outcome, RunCpu.Spent cpu) {

  private static final Pattern COMPLETED = Pattern.compile("([0-9,]+) completed");

  /** Parses the lines {@link LoadRun} printed. */
  static EngineResult of(String engine, List<String> lines) {
    return of(engine, lines, new RunCpu.Spent(0, 0));
  }

  /** Parses the lines {@link LoadRun} printed, with the CPU the run spent. */
  static EngineResult of(String engine, List<String> lines, RunCpu.Spent cpu) {
    List<String[]> windows = new ArrayList<>();
    String[] summary = null;
    StringBuilder outcome = new StringBuilder();
    for (String line : lines) {
      if (line.matches("\\| [0-9]+ \\|.*")) {
        windows.add(cells(line));
      } else if (line.startsWith("summary|")) {
        summary = cells(line.substring("summary".length()));
      } else if (line.startsWith("Every claim's outcome")
          || line.startsWith("Enqueues")
          || line.startsWith(ValidLeases.LINE)) {
        outcome.append(outcome.isEmpty() ? "" : " ").append(line);
      }
    }
    if (summary == null) {
      throw new IllegalStateException("no summary line in the run's output: " + lines);
    }
    return new EngineResult(engine, windows, summary, outcome.toString(), cpu);
  }

  private static String[] cells(String row) {
    String inner = row.strip();
    String[] cells = inner.substring(1, inner.length() - 1).split("\\|");
    for (int i = 0; i < cells.length; i++) {
      cells[i] = cells[i].strip();
    }
    return cells;
  }

  /** Median completed jobs/s over the measured windows. */
  double jobsPerSecond() {
    return Double.parseDouble(summary[2].replace(",", ""));
  }

  String claimP50() {
    return summary[5];
  }

  String claimP99() {
    return summary[6];
  }

  /** Jobs completed over the whole run, warm-up included, from the outcome line; 0 if none. */
  long completedJobs() {
    Matcher m = COMPLETED.matcher(outcome);
    return m.find() ? Long.parseLong(m.group(1).replace(",", "")) : 0;
  }

  /** PostgreSQL backends' CPU µs per completed job over the whole run; -1 when unknown. */
  double pgMicrosPerJob() {
    return perJob(cpu.pgNanos());
  }

  /** The run's JVM's CPU µs per completed job over the whole run; -1 when unknown. */
  double jvmMicrosPerJob() {
    return perJob(cpu.jvmNanos());
  }

  private double perJob(long nanos) {
    long jobs = completedJobs();
    return nanos < 0 || jobs == 0 ? -1 : nanos / 1e3 / jobs;
  }
}
