package dev.fencing.testkit.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Real signals, by pid, to processes a test started itself or through a server it started (a
 * PostgreSQL backend of its own cluster); {@link ServerProcess} and {@link JavaProcess} send theirs
 * through it.
 *
 * @since 0.1
 */
public final class Signals {

  private Signals() {}

  /**
   * Sends {@code SIG<signal>} to {@code process}; for {@code STOP}, returns once the kernel reports
   * it stopped.
   *
   * @param name how messages call the process
   */
  static void send(Process process, String signal, String name) {
    send(process.pid(), signal, name);
  }

  /**
   * Sends {@code SIG<signal>} ({@code STOP}, {@code CONT}, {@code KILL}, {@code TERM}) to the
   * process {@code pid} with {@code kill}; for {@code STOP}, returns once the kernel reports it
   * stopped.
   *
   * @param name how messages call the process
   * @throws IllegalStateException if {@code kill} fails (no such process) or a stop takes 10 s
   */
  public static void send(long pid, String signal, String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid + " failed for " + name);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("kill -" + signal + " for " + name, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted signalling " + name, e);
    }
    if (signal.equals("STOP")) {
      awaitState(pid, 'T', name + " was not stopped within 10 s");
    }
  }

  private static void awaitState(long pid, char state, String failure) {
    Path stat = Path.of("/proc", Long.toString(pid), "stat");
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      try {
        String text = Files.readString(stat);
        // the state follows the command name, which is in parentheses
        if (text.charAt(text.lastIndexOf(')') + 2) == state) {
          return;
        }
        Thread.sleep(2);
      } catch (IOException e) {
        return; // no /proc here: the signal was delivered, trust it
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    throw new IllegalStateException(failure);
  }
}
