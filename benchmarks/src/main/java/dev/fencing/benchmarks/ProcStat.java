package dev.fencing.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time of processes and threads on this machine, read from /proc (Linux only). */
final class ProcStat {

  /** The kernel's clock ticks per second, which /proc counts CPU time in. */
  static final long TICKS_PER_SECOND = clockTicks();

  private ProcStat() {}

  /** utime + stime of process {@code pid} in nanoseconds, or -1 when it cannot be read. */
  static long cpuNanos(long pid) {
    return cpuNanos(Path.of("/proc", Long.toString(pid), "stat"));
  }

  /**
   * CPU time in nanoseconds of this JVM's threads whose name (as the kernel has it, at most 15
   * characters) starts with {@code prefix}: e.g. "C2 CompilerThre" or "GC Thread".
   */
  static long ownThreadsCpuNanos(String... prefixes) {
    long sum = 0;
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
      for (Path task : tasks) {
        String comm = read(task.resolve("comm")).trim();
        for (String prefix : prefixes) {
          if (comm.startsWith(prefix)) {
            sum += Math.max(0, cpuNanos(task.resolve("stat")));
            break;
          }
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return sum;
  }

  private static long cpuNanos(Path stat) {
    try {
      String text = read(stat);
      // the command name, in parentheses, may hold spaces: count fields after its closing one
      String[] f = text.substring(text.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
      return ticks * 1_000_000_000L / TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static String read(Path path) throws IOException {
    return Files.readString(path, StandardCharsets.US_ASCII);
  }

  private static long clockTicks() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      p.waitFor();
      return Long.parseLong(out.trim());
    } catch (IOException | RuntimeException e) {
      return 100;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 100;
    }
  }
}
