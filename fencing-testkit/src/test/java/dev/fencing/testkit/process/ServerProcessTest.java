package dev.fencing.testkit.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness on real processes: a small JVM that listens and ticks, and shell commands. */
class ServerProcessTest {

  @TempDir Path dir;

  /**
   * A server for the tests: listens on the port it is given, logs {@code listening}, then a tick
   * every 20 ms; logs {@code terminated} when {@code SIGTERM} ends it.
   */
  static final class TickingServer {
    public static void main(String[] args) throws Exception {
      PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> out.println("terminated")));
      try (ServerSocket server =
          new ServerSocket(Integer.parseInt(args[0]), 50, InetAddress.getLoopbackAddress())) {
        out.println("listening");
        for (long tick = 0; ; tick++) {
          out.println("tick " + tick);
          Thread.sleep(20);
        }
      }
    }
  }

  /** Starts {@code sleep 60}, logs its pid, and exits without closing it. */
  static final class LeavesAServerBehind {
    public static void main(String[] args) {
      ServerProcess sleeper = ServerProcess.builder("sleep", "60").log(Path.of(args[0])).start();
      System.out.println("server pid " + sleeper.pid());
      System.exit(0);
    }
  }

  @Test
  void theEndOfTheJvmEndsTheServersItLeftRunning() throws Exception {
    ServerProcess jvm =
        ServerProcess.builder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                LeavesAServerBehind.class.getName(),
                dir.resolve("sleeper.log").toString())
            .log(dir.resolve("jvm.log"))
            .start();
    try (jvm) {
      String line = jvm.awaitLogLine(l -> l.startsWith("server pid "), Duration.ofSeconds(60));
      long pid = Long.parseLong(line.substring("server pid ".length()));
      assertThat(jvm.awaitExit(Duration.ofSeconds(30))).isZero();
      ProcessHandle.of(pid)
          .ifPresent(
              left ->
                  assertThat(left.onExit())
                      .as("sleep (pid %d) after its JVM ended", pid)
                      .succeedsWithin(Duration.ofSeconds(5)));
    }
  }

  @Test
  void startsReadyFreezesThawsAndStopsWithSigterm() throws Exception {
    int port = Ports.freePort();
    Path log = dir.resolve("logs/ticking.log");
    ServerProcess server =
        ServerProcess.builder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                TickingServer.class.getName(),
                Integer.toString(port))
            .name("ticking")
            .log(log)
            .readyWhenListening(port)
            .readyWhenLogShows("listening")
            .readyWithin(Duration.ofSeconds(60))
            .start();
    try (server) {
      assertThat(server.pid()).isEqualTo(server.handle().pid());
      assertThat(server.isAlive()).isTrue();
      try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
        assertThat(client.isConnected()).isTrue();
      }
      server.awaitLogLine(line -> line.equals("tick 3"), Duration.ofSeconds(10));

      server.freeze();
      assertThat(state(server.pid())).isEqualTo('T');
      long frozenAt = Files.size(log);
      Thread.sleep(300);
      assertThat(Files.size(log)).as("no tick while frozen").isEqualTo(frozenAt);

      server.thaw();
      long ticks = ticks(log);
      server.awaitLogLine(line -> line.equals("tick " + (ticks + 2)), Duration.ofSeconds(10));
    }
    assertThat(server.isAlive()).isFalse();
    assertThat(Files.readAllLines(log)).as("SIGTERM ran its shutdown hook").contains("terminated");
    server.close(); // again: nothing
    assertThat(server.logTail(2)).contains(log.toAbsolutePath().toString()).contains("terminated");
  }

  @Test
  void aStartThatNeverBecomesReadyFailsWithinTheBoundWithTheLogTailAndKillsIt() throws Exception {
    Path log = dir.resolve("never.log");
    // a former process's line in the same log does not count
    Files.writeString(log, "ready from before\n");
    long start = System.nanoTime();
    assertThatThrownBy(
            () ->
                ServerProcess.builder("sh", "-c", "echo warming up; exec sleep 60")
                    .name("never-ready")
                    .log(log)
                    .readyWhenLogShows("ready")
                    .readyWithin(Duration.ofSeconds(2))
                    .start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("never-ready (pid ")
        .hasMessageContaining("did not show a log line with 'ready' within PT2S")
        .hasMessageContaining("warming up")
        .satisfies(e -> assertThat(ProcessHandle.of(pid(e.getMessage()))).isEmpty());
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
  }

  @Test
  void aStartWhoseProcessExitsFailsWithItsExitCodeAndLog() {
    assertThatThrownBy(
            () ->
                ServerProcess.builder("sh", "-c", "echo bad configuration; exit 3")
                    .log(dir.resolve("exits.log"))
                    .readyWhen("a probe that never holds", () -> false)
                    .start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("sh (pid ")
        .hasMessageContaining("exited with 3 before a probe that never holds")
        .hasMessageContaining("bad configuration");
  }

  @Test
  void aProbesLastThrowIsTheCauseOfTheTimeout() {
    assertThatThrownBy(
            () ->
                ServerProcess.builder("sleep", "60")
                    .log(dir.resolve("probe.log"))
                    .readyWhen(
                        "an answer",
                        () -> {
                          throw new IOException("connection refused");
                        })
                    .readyWithin(Duration.ofMillis(300))
                    .start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("last: java.io.IOException: connection refused")
        .hasCauseInstanceOf(IOException.class);
  }

  @Test
  void aProcessThatIgnoresSigtermIsKilledAfterTheGrace() throws Exception {
    ServerProcess stubborn =
        ServerProcess.builder("sh", "-c", "trap '' TERM; echo up; while :; do sleep 0.05; done")
            .log(dir.resolve("stubborn.log"))
            .readyWhenLogShows("up")
            .stopGrace(Duration.ofMillis(300))
            .start();
    long start = System.nanoTime();
    stubborn.stop();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(300));
    assertThat(stubborn.isAlive()).isFalse();
    assertThat(stubborn.awaitExit(Duration.ZERO)).as("killed by SIGKILL (128 + 9)").isEqualTo(137);
  }

  @Test
  void aFrozenProcessStopsOnSigtermOnceThawed() {
    ServerProcess frozen =
        ServerProcess.builder("sleep", "60").log(dir.resolve("frozen.log")).start();
    frozen.freeze();
    long start = System.nanoTime();
    frozen.close();
    assertThat(frozen.isAlive()).isFalse();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void runsInItsDirectoryWithTheEnvironmentGiven() throws Exception {
    Path work = Files.createDirectories(dir.resolve("work"));
    ServerProcess shell =
        ServerProcess.builder(
                "sh", "-c", "echo \"$GREETING from $(pwd), home ${HOME:-unset}\"; echo done")
            .directory(work)
            .environment("GREETING", "hello")
            .withoutEnvironment(variable -> variable.equals("HOME"))
            .log(dir.resolve("env.log"))
            .start();
    assertThat(shell.awaitExit(Duration.ofSeconds(10))).isZero();
    assertThat(shell.awaitLogLine(line -> line.startsWith("hello"), Duration.ofSeconds(1)))
        .isEqualTo("hello from " + work.toRealPath() + ", home unset");
  }

  @Test
  void aMissingProgramFailsNamingIt() {
    assertThatThrownBy(
            () ->
                ServerProcess.builder(List.of("/nonexistent/server", "--flag"))
                    .log(dir.resolve("missing.log"))
                    .start())
        .hasMessageContaining("could not start server")
        .hasMessageContaining("/nonexistent/server");
  }

  private static long ticks(Path log) throws IOException {
    return Files.readAllLines(log).stream().filter(line -> line.startsWith("tick ")).count();
  }

  private static char state(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    return stat.charAt(stat.lastIndexOf(')') + 2);
  }

  private static long pid(String message) {
    Matcher m = Pattern.compile("\\(pid (\\d+)\\)").matcher(message);
    assertThat(m.find()).isTrue();
    return Long.parseLong(m.group(1));
  }
}
