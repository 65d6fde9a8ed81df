package dev.fencing.demo;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * An earlier state of this repository, built from its git history while the tests run, so that a
 * test can run that build's code in processes next to this build's ({@link RollingUpgradeTest}: the
 * workers of the release before schema versions, on the schema this build migrates).
 *
 * <p>{@link #classPath()} exports the commit with {@code git archive} into {@code
 * target/earlier-build-<commit>/src} of the module whose tests run, and builds its {@code
 * fencing-demo} and the modules that one needs with that tree's own Maven wrapper, its main code
 * only ({@code -Pdemo}, that build's profile that unbinds tests and checks), on this JVM's {@code
 * java.home}; {@code dependency:build-classpath} runs in the same invocation, so the reactor's
 * modules come from that tree's jars, never from the local repository. The class path is kept in
 * {@code classpath.txt} beside it and reused while its jars exist; the jars of that build's own
 * modules and a class path naming them are also kept in the local Maven repository ({@code
 * dev/fencing/earlier-build-<commit>}), so a later clone on the same machine builds nothing. It
 * runs at a lower CPU priority ({@code nice}), so that the tests running beside it in other
 * surefire forks keep their timing.
 *
 * <p>It needs {@code git} and the commit in the clone's history; without them it fails, saying what
 * to get, and never skips: a shallow clone has to fetch the whole history first.
 */
final class EarlierBuild {

  /** How long the export and the build may take together before the test fails. */
  static final Duration TIMEOUT = Duration.ofMinutes(6);

  private static final Map<String, String> BUILT = new ConcurrentHashMap<>();

  private static final Path NICE = Path.of("/usr/bin/nice");

  private final String commit;

  private EarlierBuild(String commit) {
    this.commit = commit;
  }

  /**
   * The state of this repository at {@code commit}.
   *
   * @param commit a full commit id, so that the build's directory is named the same in every clone
   * @throws IllegalArgumentException if {@code commit} is not 40 hexadecimal digits
   */
  static EarlierBuild at(String commit) {
    if (!commit.matches("[0-9a-f]{40}")) {
      throw new IllegalArgumentException(
          "commit must be a full commit id (40 hexadecimal digits), but was '" + commit + "'");
    }
    return new EarlierBuild(commit);
  }

  /** Returns the first 7 digits of the commit, as {@code git log --oneline} shows it. */
  String shortCommit() {
    return commit.substring(0, 7);
  }

  /**
   * Returns the class path of that build's {@code fencing-demo} (its jar, then its runtime
   * dependencies, that build's modules among them), building it the first time; test JVMs of one
   * module that ask at once build it once.
   *
   * @throws IllegalStateException if git or the commit is missing, or the build fails or takes
   *     longer than {@link #TIMEOUT}, with what to do or the end of the build's log
   */
  String classPath() {
    return BUILT.computeIfAbsent(commit, c -> built());
  }

  private String built() {
    Path module = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    Path home = module.resolve("target").resolve("earlier-build-" + shortCommit());
    Path marker = home.resolve("classpath.txt");
    try {
      Files.createDirectories(home);
      try (FileChannel channel =
              FileChannel.open(
                  home.resolveSibling(home.getFileName() + ".lock"),
                  StandardOpenOption.CREATE,
                  StandardOpenOption.WRITE);
          FileLock held = channel.lock()) {
        String kept = kept(marker);
        if (kept == null && cached().isPresent()) {
          kept = kept(cached().get().resolve("classpath.txt"));
        }
        if (kept != null) {
          return kept;
        }
        long started = System.nanoTime();
        long deadline = started + TIMEOUT.toNanos();
        Path sources = exported(module, home, deadline);
        String classPath = build(sources, home, deadline);
        Path part = home.resolve("classpath.txt.part");
        Files.writeString(part, classPath, StandardCharsets.UTF_8);
        Files.move(part, marker, StandardCopyOption.ATOMIC_MOVE);
        keep(classPath, sources);
        System.out.printf(
            "earlier build %s: exported and built in %d s, in %s%n",
            shortCommit(), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), sources);
        return classPath;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not build commit " + commit + " in " + home, e);
    }
  }

  /**
   * Where the local Maven repository keeps this commit's build between clones: {@code
   * dev/fencing/earlier-build-<commit>}, beside the artifacts the build resolved. A commit never
   * changes, so what was built from it once holds for every later run on the machine, as a
   * downloaded artifact does; without {@code fencing.earlierBuild.localRepository} nothing is kept.
   */
  private Optional<Path> cached() {
    String repository = System.getProperty("fencing.earlierBuild.localRepository", "");
    return repository.isBlank()
        ? Optional.empty()
        : Optional.of(Path.of(repository, "dev", "fencing", "earlier-build-" + commit));
  }

  /**
   * Copies the jars of the build's own modules (those under {@code sources}) into {@link #cached()}
   * with a class path that names the copies; a failure to keep them only costs the next run a
   * build.
   */
  private void keep(String classPath, Path sources) {
    if (cached().isEmpty() || Files.exists(cached().get())) {
      return;
    }
    Path cache = cached().get();
    Path part =
        cache.resolveSibling(cache.getFileName() + ".part-" + ProcessHandle.current().pid());
    try {
      Files.createDirectories(part);
      List<String> entries = new ArrayList<>();
      for (String entry : classPath.split(File.pathSeparator)) {
        Path jar = Path.of(entry);
        if (jar.startsWith(sources)) {
          Path copy = part.resolve(jar.getFileName());
          Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
          entries.add(cache.resolve(jar.getFileName()).toString());
        } else {
          entries.add(entry);
        }
      }
      Files.writeString(
          part.resolve("classpath.txt"),
          String.join(File.pathSeparator, entries),
          StandardCharsets.UTF_8);
      Files.move(part, cache, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      System.out.printf("earlier build %s: not kept in %s (%s)%n", shortCommit(), cache, e);
      try {
        delete(part);
      } catch (IOException ignored) {
        // a leftover directory; the next run writes another
      }
    }
  }

  /** The class path a former build left, if every entry of it is still there. */
  private static String kept(Path marker) throws IOException {
    if (!Files.isRegularFile(marker)) {
      return null;
    }
    String classPath = Files.readString(marker, StandardCharsets.UTF_8).strip();
    boolean whole =
        !classPath.isEmpty()
            && Stream.of(classPath.split(File.pathSeparator))
                .allMatch(e -> Files.exists(Path.of(e)));
    return whole ? classPath : null;
  }

  /** Exports the commit into {@code home/src}, in place of what a broken attempt left there. */
  private Path exported(Path module, Path home, long deadline) throws IOException {
    String root = git(module, deadline, "rev-parse", "--show-toplevel");
    if (run(module, deadline, List.of("git", "cat-file", "-e", commit + "^{commit}")) != 0) {
      String shallow = git(module, deadline, "rev-parse", "--is-shallow-repository");
      throw new IllegalStateException(
          "commit "
              + commit
              + " is not in the history of the clone at "
              + root
              + (shallow.equals("true") ? ", a shallow clone" : "")
              + ": this test builds that earlier state of the repository from its history. Fetch"
              + " the whole history (git fetch --unshallow origin, or in GitHub Actions"
              + " actions/checkout with fetch-depth: 0)");
    }
    Path sources = home.resolve("src");
    delete(sources);
    Files.createDirectories(sources);
    Path tar = home.resolve("src.tar");
    // from the root: in a subdirectory, git archive takes that subdirectory's files only
    git(Path.of(root), deadline, "archive", "--format=tar", "-o", tar.toString(), commit);
    check(
        run(home, deadline, List.of("tar", "-xf", tar.toString(), "-C", sources.toString())),
        "tar");
    Files.delete(tar);
    return sources;
  }

  /**
   * Builds {@code fencing-demo} of the tree in {@code sources} with its own wrapper and returns its
   * class path.
   */
  private String build(Path sources, Path home, long deadline) throws IOException {
    Path classPathFile = sources.resolve("fencing-demo/target/earlier-build-classpath.txt");
    List<String> command = new ArrayList<>();
    if (Files.isExecutable(NICE)) {
      // below the tests that run beside it (surefire forks), whose leases are short
      command.addAll(List.of(NICE.toString(), "-n", "10"));
    }
    command.addAll(
        List.of(
            sources.resolve("mvnw").toString(),
            "-B",
            "-ntp",
            "-q",
            // that build's profile for the demo: main code only, no tests, PIT, Spotless,
            // dependency:analyze or sources jars
            "-Pdemo",
            "-DskipTests",
            "-Dmaven.javadoc.skip=true",
            "-Dmaven.source.skip=true",
            "-DincludeScope=runtime",
            // relative: each module writes its own, so parallel modules (-T1C) never race
            "-Dmdep.outputFile=target/earlier-build-classpath.txt"));
    String repository = System.getProperty("fencing.earlierBuild.localRepository", "");
    if (!repository.isBlank()) {
      command.add("-Dmaven.repo.local=" + repository);
    }
    command.addAll(List.of("-pl", "fencing-demo", "-am", "package", "dependency:build-classpath"));
    Path log = home.resolve("build.log");
    ProcessBuilder maven =
        new ProcessBuilder(command)
            .directory(sources.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    String javaHome = System.getProperty("java.home");
    maven.environment().put("JAVA_HOME", javaHome);
    maven
        .environment()
        .put(
            "PATH",
            Path.of(javaHome, "bin") + File.pathSeparator + maven.environment().get("PATH"));
    // the Maven that runs these tests exports its own project's directory and arguments
    maven.environment().remove("MAVEN_PROJECTBASEDIR");
    maven.environment().remove("MAVEN_CMD_LINE_ARGS");
    int exit = run(maven, deadline);
    if (exit != 0 || !Files.isRegularFile(classPathFile)) {
      throw new IllegalStateException(
          "the build of commit "
              + commit
              + " ("
              + String.join(" ", command)
              + ", in "
              + sources
              + ") "
              + (exit < 0 ? "did not end within " + TIMEOUT : "failed with exit code " + exit)
              + "; the end of "
              + log
              + ":\n"
              + tail(log));
    }
    Path demoJar;
    try (Stream<Path> jars = Files.list(sources.resolve("fencing-demo/target"))) {
      demoJar =
          jars.filter(p -> p.getFileName().toString().matches("fencing-demo-.*\\.jar"))
              .filter(p -> !p.getFileName().toString().endsWith("-sources.jar"))
              .findFirst()
              .orElseThrow(
                  () -> new IllegalStateException("the build of " + commit + " made no demo jar"));
    }
    return demoJar + File.pathSeparator + Files.readString(classPathFile).strip();
  }

  private String git(Path directory, long deadline, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    Path out = Files.createTempFile("earlier-build-git", ".txt");
    try {
      ProcessBuilder git =
          new ProcessBuilder(command)
              .directory(directory.toFile())
              .redirectErrorStream(true)
              .redirectOutput(out.toFile());
      int exit;
      try {
        exit = run(git, deadline);
      } catch (IOException e) {
        throw new IllegalStateException(
            "git is not on the PATH: this test builds commit "
                + commit
                + " from the repository's history; install git and run the tests in a clone of"
                + " the repository with its whole history",
            e);
      }
      String output = Files.readString(out).strip();
      if (exit != 0) {
        throw new IllegalStateException(
            String.join(" ", command)
                + " in "
                + directory
                + " failed ("
                + output
                + "): this test builds commit "
                + commit
                + " from the repository's history, so it runs in a git clone of the repository"
                + " with its whole history");
      }
      return output;
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private static int run(Path directory, long deadline, List<String> command) throws IOException {
    return run(
        new ProcessBuilder(command)
            .directory(directory.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD),
        deadline);
  }

  /** Runs it to its end and returns its exit code, or -1 after killing it at the deadline. */
  private static int run(ProcessBuilder builder, long deadline) throws IOException {
    Process process = builder.start();
    try {
      if (process.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
        return process.exitValue();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    return -1;
  }

  private void check(int exit, String what) {
    if (exit != 0) {
      throw new IllegalStateException(
          what + " failed (exit code " + exit + ") exporting commit " + commit);
    }
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  private static void delete(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
