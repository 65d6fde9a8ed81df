package dev.fencing.benchmarks;

import dev.fencing.testkit.db.PostgresFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The {@code --name value} options of the benchmark mains. */
final class Args {

  private Args() {}

  /** Returns the integer after {@code name}, or {@code fallback} when {@code name} is absent. */
  static int intArg(String[] args, String name, int fallback) {
    String value = stringArg(args, name, null);
    return value == null ? fallback : Integer.parseInt(value);
  }

  /**
   * Returns the word after {@code name}, or {@code fallback} (may be null) when {@code name} is
   * absent.
   */
  static String stringArg(String[] args, String name, String fallback) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return args[i + 1];
      }
    }
    return fallback;
  }

  /**
   * Prints {@code report} and, when {@code out} is not null (the value of {@code --out}), writes it
   * to that file, creating its folder.
   */
  static void printAndWrite(String report, String out) throws IOException {
    System.out.print(report);
    if (out != null) {
      Path path = Path.of(out).toAbsolutePath();
      Files.createDirectories(path.getParent());
      Files.writeString(path, report);
    }
  }

  /**
   * Prints {@code section}, writes it to the file of {@code --out} if given, and puts it into the
   * file of {@code --doc} if given, in place of the section of the same title (or at its end).
   */
  static void report(String section, String[] args) throws IOException {
    printAndWrite(section, stringArg(args, "--out", null));
    String doc = stringArg(args, "--doc", null);
    if (doc != null) {
      Path file = Path.of(doc);
      Files.writeString(file, OtherSections.replaced(file, section));
      System.out.println("written into " + file.toAbsolutePath());
    }
  }

  /** The database of a worker JVM's {@code --url}, {@code --user} and {@code --password}. */
  static PostgresFixture.Database database(String[] args) {
    return new PostgresFixture.Database(
        stringArg(args, "--url", null),
        stringArg(args, "--user", ""),
        stringArg(args, "--password", ""),
        "url");
  }
}
