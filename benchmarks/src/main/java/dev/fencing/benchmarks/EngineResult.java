package dev.fencing.benchmarks;

import java.util.ArrayList;
import java.util.List;

/** One run of {@link EngineBenchmark}: its results, read from its JVM's output. */
record EngineResult(String engine, List<String[]> windows, String[] summary, String outcome) {

  /** Parses the lines {@link LoadRun} printed. */
  static EngineResult of(String engine, List<String> lines) {
    List<String[]> windows = new ArrayList<>();
    String[] summary = null;
    StringBuilder outcome = new StringBuilder();
    for (String line : lines) {
      if (line.matches("\\| [0-9]+ \\|.*")) {
        windows.add(cells(line));
      } else if (line.startsWith("summary|")) {
        summary = cells(line.substring("summary".length()));
      } else if (line.startsWith("Every claim's outcome") || line.startsWith("Enqueues")) {
        outcome.append(outcome.isEmpty() ? "" : " ").append(line);
      }
    }
    if (summary == null) {
      throw new IllegalStateException("no summary line in the run's output: " + lines);
    }
    return new EngineResult(engine, windows, summary, outcome.toString());
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
}
