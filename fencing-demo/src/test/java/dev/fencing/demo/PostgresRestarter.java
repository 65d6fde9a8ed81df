package dev.fencing.demo;

import dev.fencing.testkit.db.PostgresFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Stops and starts the embedded PostgreSQL server on its own data directory and port, with the
 * {@code pg_ctl} next to the running server's binary and the options it was started with (from
 * {@code postmaster.opts}). As root, {@code pg_ctl} runs under {@code unshare -U}, as the embedded
 * server's own launcher does.
 *
 * <p>Stops are {@code -m fast}: sessions are ended and in-flight transactions rolled back, and
 * everything acknowledged is on disk. ({@code -m immediate} would lose acknowledged commits here,
 * since the embedded server runs with {@code synchronous_commit=off}: that tests PostgreSQL's
 * configuration, not the library.)
 */
final class PostgresRestarter {

  private static final Pattern TOKEN = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"|(\\S+)");

  private final Path pgCtl;
  private final Path dataDirectory;
  private final String options;
  private final Path logFile;

  private PostgresRestarter(Path pgCtl, Path dataDirectory, String options, Path logFile) {
    this.pgCtl = pgCtl;
    this.dataDirectory = dataDirectory;
    this.options = options;
    this.logFile = logFile;
  }

  /**
   * Returns a restarter for {@code database}, or empty, with the reason in {@code why}, when this
   * test cannot restart it (a server from {@code FENCING_JDBC_URL} or a container).
   */
  static Optional<PostgresRestarter> of(
      PostgresFixture.Database database, Path logFile, StringBuilder why) {
    if (!database.source().equals("embedded")) {
      why.append("PostgreSQL came from ")
          .append(database.source())
          .append(", not the embedded server: the test does not restart a server it does not own");
      return Optional.empty();
    }
    try (Connection c = database.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SHOW data_directory")) {
      r.next();
      Path data = Path.of(r.getString(1));
      List<String> opts = tokens(Files.readString(data.resolve("postmaster.opts")).strip());
      Path postgres = Path.of(opts.getFirst());
      StringBuilder rest = new StringBuilder();
      for (int i = 1; i < opts.size(); i++) {
        if (opts.get(i).equals("-D")) {
          i++;
          continue;
        }
        rest.append(" \"").append(opts.get(i).replace("\"", "\\\"")).append('"');
      }
      return Optional.of(
          new PostgresRestarter(
              postgres.resolveSibling("pg_ctl"), data, rest.toString().strip(), logFile));
    } catch (SQLException | IOException | RuntimeException e) {
      why.append("could not find the embedded server's data directory and options: ").append(e);
      return Optional.empty();
    }
  }

  /** Stops the server (fast), waits {@code downtime}, and starts it again on the same port. */
  void restart(Duration downtime) {
    pgCtl("-D", dataDirectory.toString(), "-m", "fast", "-w", "-t", "60", "stop");
    try {
      Thread.sleep(downtime);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    pgCtl(
        "-D",
        dataDirectory.toString(),
        "-o",
        options,
        "-l",
        logFile.toString(),
        "-w",
        "-t",
        "60",
        "start");
  }

  private void pgCtl(String... args) {
    List<String> command = new ArrayList<>();
    if ("root".equals(System.getProperty("user.name"))) {
      command.addAll(List.of("unshare", "-U"));
    }
    command.add(pgCtl.toString());
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(90, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException(
            String.join(" ", command) + " failed: " + new String(out, StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running pg_ctl", e);
    }
  }

  private static List<String> tokens(String line) {
    List<String> tokens = new ArrayList<>();
    Matcher m = TOKEN.matcher(line);
    while (m.find()) {
      tokens.add(m.group(1) != null ? m.group(1).replaceAll("\\\\(.)", "$1") : m.group(2));
    }
    return tokens;
  }
}
