package dev.fencing.spec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One run of TLC on a spec of this module ({@code Fencing.tla}, {@code AppendEngine.tla}) with one
 * configuration, in a child JVM: TLC calls {@code System.exit}. The spec and the configuration are
 * copied to {@code target/tlc/<config>/}, which is TLC's working directory, metadir and temporary
 * directory (TLC unpacks its standard modules there), so nothing is written to the source tree.
 * Configuration names are unique across the module's specs.
 *
 * @param config the configuration file name, e.g. {@code Fencing.cfg}
 * @param exitCode TLC's exit code
 * @param output everything TLC printed
 * @param wallTime how long the child JVM ran
 */
record TlcRun(String config, int exitCode, String output, Duration wallTime) {

  private static final Duration TIMEOUT = Duration.ofMinutes(5);
  private static final Pattern STATES =
      Pattern.compile(
          "(\\d+) states generated, (\\d+) distinct states found, (\\d+) states left on queue");
  private static final Pattern VIOLATION =
      Pattern.compile("Error: (?:Invariant|Action property) (\\w+) is violated");
  private static final Pattern STATE_IN_TRACE = Pattern.compile("(?m)^State (\\d+): ");
  private static final Pattern FINISHED = Pattern.compile("Finished in (.+?) at \\(");

  /** How much TLC has to explore, which decides how its JVM compiles. */
  enum Size {
    /**
     * Up to some 50,000 distinct states (every broken variant, the smaller models): C1 only. Such a
     * run is over before C2's compilations pay for themselves (measured: a quarter less CPU).
     */
    SMALL,
    /** More: the JVM's default tiered compilation. */
    LARGE
  }

  /** Runs TLC on the spec {@code <spec>.tla} with {@code config}, with a bounded time. */
  static TlcRun check(String spec, String config, Size size)
      throws IOException, InterruptedException {
    Path module = moduleDir();
    Path work = module.resolve("target").resolve("tlc").resolve(config.replace(".cfg", ""));
    deleteTree(work);
    Path tmp = Files.createDirectories(work.resolve("tmp"));
    Files.copy(
        module.resolve(spec + ".tla"),
        work.resolve(spec + ".tla"),
        StandardCopyOption.REPLACE_EXISTING);
    Files.copy(module.resolve(config), work.resolve(config), StandardCopyOption.REPLACE_EXISTING);

    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:+UseParallelGC");
    if (size == Size.SMALL) {
      command.add("-XX:TieredStopAtLevel=1");
    }
    command.add("-Xmx2g");
    command.add("-Djava.io.tmpdir=" + tmp);
    command.add("-cp");
    command.add(tlcJar().toString());
    command.add("tlc2.TLC");
    command.add("-workers");
    command.add("1");
    command.add("-cleanup");
    command.add("-metadir");
    command.add(work.resolve("states").toString());
    command.add("-config");
    command.add(config);
    command.add(spec);

    Path log = work.resolve("tlc.log");
    Process process =
        new ProcessBuilder(command)
            .directory(work.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    long start = System.nanoTime();
    boolean finished = process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    Duration wallTime = Duration.ofNanos(System.nanoTime() - start);
    if (!finished) {
      process.destroyForcibly().waitFor();
      throw new AssertionError(
          "TLC did not finish " + config + " within " + TIMEOUT + "; its output is in " + log);
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    return new TlcRun(config, process.exitValue(), output, wallTime);
  }

  /** Whether TLC checked the whole state space and found no error. */
  boolean passed() {
    return output.contains("Model checking completed. No error has been found.");
  }

  /** The invariant or action property TLC reported violated, if any. */
  Optional<String> violated() {
    Matcher m = VIOLATION.matcher(output);
    return m.find() ? Optional.of(m.group(1)) : Optional.empty();
  }

  /** Whether TLC reported a violated temporal (liveness) property. */
  boolean temporalViolated() {
    return output.contains("Error: Temporal properties were violated.");
  }

  /** The number of states in the counterexample TLC printed, 0 if none. */
  int traceLength() {
    Matcher m = STATE_IN_TRACE.matcher(output);
    int longest = 0;
    while (m.find()) {
      longest = Math.max(longest, Integer.parseInt(m.group(1)));
    }
    return longest;
  }

  /** States generated, from TLC's closing line; -1 if it printed none. */
  long generatedStates() {
    Matcher m = lastStatesLine();
    return m == null ? -1 : Long.parseLong(m.group(1));
  }

  /** Distinct states found, from TLC's closing line; -1 if it printed none. */
  long distinctStates() {
    Matcher m = lastStatesLine();
    return m == null ? -1 : Long.parseLong(m.group(2));
  }

  private Matcher lastStatesLine() {
    Matcher m = STATES.matcher(output);
    Matcher last = null;
    while (m.find()) {
      last = STATES.matcher(output.substring(m.start(), m.end()));
      last.find();
    }
    return last;
  }

  /** One line for the build log. */
  String summary() {
    Matcher f = FINISHED.matcher(output);
    String tlcTime = f.find() ? f.group(1) : "?";
    return String.format(
        "TLC %s: %s; %d distinct states, %d generated; TLC %s, wall %.1f s%s",
        config,
        passed()
            ? "no error"
            : violated().map(v -> v + " violated").orElse(temporalViolated() ? "liveness" : "?"),
        distinctStates(),
        generatedStates(),
        tlcTime,
        wallTime.toMillis() / 1000.0,
        traceLength() > 0 ? "; counterexample of " + traceLength() + " states" : "");
  }

  /** The tail of TLC's output, for a failed assertion's message. */
  String tail() {
    List<String> lines = output.lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  private static Path tlcJar() {
    try {
      return Path.of(tlc2.TLC.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The spec module's directory (Maven runs tests there; an IDE may not). */
  private static Path moduleDir() {
    Path here = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    for (Path candidate : List.of(here, here.resolve("spec"))) {
      if (Files.isRegularFile(candidate.resolve("Fencing.tla"))) {
        return candidate;
      }
    }
    throw new IllegalStateException("Fencing.tla not found in " + here + " or " + here + "/spec");
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths
          .sorted((a, b) -> b.getNameCount() - a.getNameCount())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }
}
