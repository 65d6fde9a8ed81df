package dev.fencing.testkit.process;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The log file of a {@link ServerProcess}, which may hold the output of earlier processes before
 * {@code start}, the offset where this one's output begins.
 */
record ServerLog(Path file, long start) {

  /** How much of a log's end a tail reads: enough for any line count a message wants. */
  private static final int TAIL_BYTES = 64 * 1024;

  /** Returns the first line written from {@code start} on that {@code matches}, or null. */
  @Nullable String firstNewLine(Predicate<String> matches) throws IOException {
    return read(file, start, Long.MAX_VALUE).lines().filter(matches).findFirst().orElse(null);
  }

  /**
   * Returns the last {@code lines} lines of {@code log}, headed by its path, for a failure message;
   * the error instead of the lines when it cannot be read.
   */
  static String tail(Path log, int lines) {
    try {
      long size = Files.exists(log) ? Files.size(log) : 0;
      List<String> all = read(log, Math.max(0, size - TAIL_BYTES), TAIL_BYTES).lines().toList();
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

  private static String read(Path file, long from, long atMost) throws IOException {
    if (!Files.exists(file)) {
      return "";
    }
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      long length = Math.min(atMost, Math.max(0, in.length() - from));
      byte[] bytes = new byte[Math.toIntExact(Math.min(length, Integer.MAX_VALUE - 8))];
      in.seek(from);
      in.readFully(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }
}
