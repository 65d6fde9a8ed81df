package dev.fencing.ha;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Pids of the processes a fixture saw but did not start itself (the postmasters Patroni starts),
 * and its shutdown hooks; the test kit's {@code ServerProcess} runs those it starts.
 */
final class OsProcesses {

  private OsProcesses() {}

  /**
   * Whether {@code process} runs: the same process (the JDK compares start times, so a reused pid
   * does not count) and no zombie. A process whose parent died is reparented to an init that may
   * never reap it.
   */
  static boolean alive(ProcessHandle process) {
    if (!process.isAlive()) {
      return false;
    }
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
      // the state follows the command name, which is in parentheses
      char state = stat.charAt(stat.lastIndexOf(')') + 2);
      return state != 'Z' && state != 'X';
    } catch (IOException gone) {
      return false;
    }
  }

  /**
   * Sends SIGKILL to {@code process}, if it is still the process it was (the JDK checks its start
   * time, so a reused pid is left alone).
   */
  static void kill(ProcessHandle process) {
    process.destroyForcibly();
  }

  /**
   * Waits up to {@code within} until none of {@code processes} runs; returns those that still do.
   */
  static List<ProcessHandle> awaitGone(Collection<ProcessHandle> processes, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    List<ProcessHandle> running = new ArrayList<>(processes);
    while (true) {
      running.removeIf(process -> !alive(process));
      if (running.isEmpty() || System.nanoTime() > deadline) {
        return running;
      }
      pause(Duration.ofMillis(20));
    }
  }

  /** The postmaster named by the first line of {@code postmaster.pid}, if it runs as one. */
  static Optional<ProcessHandle> postmaster(Path dataDir) {
    try {
      List<String> lines = Files.readAllLines(dataDir.resolve("postmaster.pid"));
      return lines.isEmpty()
          ? Optional.empty()
          : ProcessHandle.of(Long.parseLong(lines.getFirst().trim()))
              .filter(OsProcesses::alive)
              // a stale file may name a pid that another program has by now
              .filter(p -> p.info().command().filter(c -> c.endsWith("/postgres")).isPresent());
    } catch (IOException | NumberFormatException none) {
      return Optional.empty();
    }
  }

  /**
   * Removes {@code onExit}, a fixture's shutdown hook, when its fixture closes before the JVM
   * exits; nothing when the hook itself is what closes it, or the JVM is exiting already.
   */
  static void dropShutdownHook(Thread onExit) {
    if (Thread.currentThread() != onExit) {
      try {
        Runtime.getRuntime().removeShutdownHook(onExit);
      } catch (IllegalStateException exiting) {
        // the hook runs or has run: the fixture's close and the hook's are the same, in turn
      }
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
