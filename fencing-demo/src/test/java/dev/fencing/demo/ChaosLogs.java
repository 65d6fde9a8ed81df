package dev.fencing.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The outcome log of one worker incarnation, as read back after the run. */
record ChaosLogs(
    String incarnation,
    String owner,
    boolean killed,
    List<OutcomeLine> outcomes,
    List<String> malformed,
    boolean partialLastLine,
    Optional<Stats> stats) {

  /** The counters a worker logs after its runtime's shutdown. */
  record Stats(boolean drained, long claimed, long ended, long inFlight, long storeErrors) {}

  private static final Pattern START = Pattern.compile("^# start worker=\\S+ owner=(\\S+)");
  private static final Pattern STATS =
      Pattern.compile(
          "^# stats drained=(\\w+) claimed=(\\d+) ended=(\\d+) inFlight=(\\d+) storeErrors=(\\d+)");

  /**
   * Reads {@code log}. A line that does not parse is malformed, except the last line of a killed
   * incarnation when it lacks its line break: the kill cut it short.
   */
  static ChaosLogs read(String incarnation, Path log, boolean killed) {
    String text;
    try {
      text = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    boolean partial = !text.isEmpty() && !text.endsWith("\n");
    String[] lines = text.split("\n", -1);
    List<OutcomeLine> outcomes = new ArrayList<>();
    List<String> malformed = new ArrayList<>();
    Optional<Stats> stats = Optional.empty();
    String owner = "?";
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      boolean last = i == lines.length - 1;
      if (line.isEmpty() && last) {
        continue;
      }
      Matcher start = START.matcher(line);
      if (start.find()) {
        owner = start.group(1);
        continue;
      }
      Matcher m = STATS.matcher(line);
      if (m.find()) {
        stats =
            Optional.of(
                new Stats(
                    Boolean.parseBoolean(m.group(1)),
                    Long.parseLong(m.group(2)),
                    Long.parseLong(m.group(3)),
                    Long.parseLong(m.group(4)),
                    Long.parseLong(m.group(5))));
        continue;
      }
      if (line.startsWith("#")) {
        continue;
      }
      Optional<OutcomeLine> parsed = OutcomeLine.parse(line);
      if (parsed.isPresent() && !(last && partial)) {
        outcomes.add(parsed.get());
      } else if (!(last && partial && killed)) {
        malformed.add(incarnation + ": " + line);
      }
    }
    return new ChaosLogs(incarnation, owner, killed, outcomes, malformed, partial, stats);
  }
}
