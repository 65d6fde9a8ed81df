package dev.fencing.testkit.process;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@link JavaProcess} and {@link ServerProcess} share: an OS process this JVM started, named
 * for messages, frozen and thawed by its pid with real signals.
 */
abstract sealed class OwnedProcess permits JavaProcess, ServerProcess {

  /** The processes started and still running, which the end of this JVM kills. */
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> LIVE.forEach(Process::destroyForcibly), "owned-process-reaper"));
  }

  private final String name;
  final Process process;
  private volatile boolean frozen;

  OwnedProcess(String name, Process process) {
    this.name = name;
    this.process = process;
  }

  /** Has the end of this JVM kill {@code process} ({@code SIGKILL}) if it runs then. */
  static void killAtExit(Process process) {
    LIVE.add(process);
    process.onExit().thenRun(() -> LIVE.remove(process));
  }

  /** Returns the name messages call it by. */
  public final String name() {
    return name;
  }

  /** Returns the operating system's process id. */
  public final long pid() {
    return process.pid();
  }

  /** Returns whether the process is still running (or frozen). */
  public final boolean isAlive() {
    return process.isAlive();
  }

  /** Freezes the process with {@code SIGSTOP}; returns once the kernel reports it stopped. */
  public final void freeze() {
    Signals.send(process, "STOP", name);
    frozen = true;
  }

  /** Thaws the process with {@code SIGCONT}. */
  public final void thaw() {
    Signals.send(process, "CONT", name);
    frozen = false;
  }

  /** Whether it was frozen and not thawed since. */
  final boolean frozen() {
    return frozen;
  }
}
