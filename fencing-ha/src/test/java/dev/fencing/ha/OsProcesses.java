package dev.fencing.ha;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** Pids, signals, ports and log tails for the processes a fixture started. */
final class OsProcesses {

  /** Ports below Linux's ephemeral range (32768-60999), which outgoing connections take from. */
  private static final int LOWEST_PORT = 20_000;

  private static final int PORT_COUNT = 12_000;

  private OsProcesses() {}

  /**
   * Whether {@code pid} runs. A zombie does not: a process killed after its parent died is
   * reparented to an init that may never reap it.
   */
  static boolean alive(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // the state follows the command name, which is in parentheses
      char state = stat.charAt(stat.lastIndexOf(')') + 2);
      return state != 'Z' && state != 'X';
    } catch (IOException gone) {
      return false;
    }
  }

  /** Sends SIGKILL to {@code pid} if it runs. */
  static void kill(long pid) {
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
  }

  /** Sends SIGTERM to {@code pid} if it runs. */
  static void terminate(long pid) {
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
  }

  /** Waits up to {@code within} until none of {@code pids} runs; returns those that still do. */
  static List<Long> awaitGone(Collection<Long> pids, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    List<Long> running = new ArrayList<>(pids);
    while (true) {
      running.removeIf(pid -> !alive(pid));
      if (running.isEmpty() || System.nanoTime() > deadline) {
        return running;
      }
      pause(Duration.ofMillis(20));
    }
  }

  /** The pid in the first line of PostgreSQL's {@code postmaster.pid}, or -1 if there is none. */
  static long postmasterPid(Path dataDir) {
    try {
      List<String> lines = Files.readAllLines(dataDir.resolve("postmaster.pid"));
      return lines.isEmpty() ? -1 : Long.parseLong(lines.getFirst().trim());
    } catch (IOException | NumberFormatException none) {
      return -1;
    }
  }

  /** A loopback port nobody listens on, drawn at random below the ephemeral range. */
  static int freePort() {
    for (int attempt = 0; attempt < 1_000; attempt++) {
      int candidate = LOWEST_PORT + ThreadLocalRandom.current().nextInt(PORT_COUNT);
      try (ServerSocket probe = new ServerSocket(candidate, 1, InetAddress.getLoopbackAddress())) {
        return probe.getLocalPort();
      } catch (IOException taken) {
        // draw again
      }
    }
    throw new AssertionError("1000 random loopback ports from " + LOWEST_PORT + " were all taken");
  }

  /** The last {@code lines} lines of {@code log}, headed by its path, for a failure message. */
  static String tail(Path log, int lines) {
    try {
      List<String> all =
          new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines().toList();
      List<String> last = all.subList(Math.max(0, all.size() - lines), all.size());
      return "--- "
          + log.toAbsolutePath()
          + " (last "
          + last.size()
          + " lines)\n"
          + String.join("\n", last);
    } catch (IOException e) {
      return "--- " + log.toAbsolutePath() + ": " + e;
    }
  }

  static void pause(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
