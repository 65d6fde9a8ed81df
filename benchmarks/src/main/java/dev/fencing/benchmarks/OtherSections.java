package dev.fencing.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The sections of a benchmarks file that other programs wrote (wake-ups, retention, enqueue, the
 * HTTP receiver): a full run rewrites its own sections and keeps these, in their order.
 */
final class OtherSections {

  private OtherSections() {}

  /**
   * Returns the {@code ## } sections of {@code file} whose titles {@code report} does not have,
   * each with a blank line before it; empty if the file does not exist.
   */
  static String kept(Path file, String report) throws IOException {
    if (!Files.exists(file)) {
      return "";
    }
    Set<String> own = new HashSet<>();
    for (String line : report.split("\n")) {
      if (line.startsWith("## ")) {
        own.add(line.strip());
      }
    }
    StringBuilder kept = new StringBuilder();
    StringBuilder section = null;
    for (String line : Files.readString(file).split("\n", -1)) {
      if (line.startsWith("## ")) {
        append(kept, section);
        section = own.contains(line.strip()) ? null : new StringBuilder();
      }
      if (section != null) {
        section.append(line).append('\n');
      }
    }
    append(kept, section);
    return kept.toString();
  }

  /**
   * Returns the text of {@code file} with {@code section} in place of the {@code ## } section of
   * the same title, or after the last section when the file has none of that title (the file alone
   * when it does not exist). The rest of the file is kept as it is.
   *
   * @throws IllegalArgumentException if {@code section} does not start with a {@code ## } title
   */
  static String replaced(Path file, String section) throws IOException {
    String title = section.lines().findFirst().orElse("").strip();
    if (!title.startsWith("## ")) {
      throw new IllegalArgumentException(
          "section must start with a '## ' title, but starts with '" + title + "'");
    }
    String text = Files.exists(file) ? Files.readString(file) : "";
    StringBuilder out = new StringBuilder();
    boolean inOld = false;
    boolean placed = false;
    for (String line : text.split("\n", -1)) {
      if (line.startsWith("## ")) {
        inOld = !placed && line.strip().equals(title);
        if (inOld) {
          out.append(section.stripTrailing()).append("\n\n");
          placed = true;
        }
      }
      if (!inOld) {
        out.append(line).append('\n');
      }
    }
    String kept = out.toString().stripTrailing();
    if (!placed) {
      kept = (kept.isEmpty() ? "" : kept + "\n\n") + section.stripTrailing();
    }
    return kept + "\n";
  }

  private static void append(StringBuilder kept, StringBuilder section) {
    if (section != null) {
      kept.append('\n').append(section.toString().stripTrailing()).append('\n');
    }
  }
}
