package dev.fencing.ha;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Keeps PgBouncer in front of the primary across failovers, as a user would deploy it: Patroni's
 * {@code on_role_change} callback on every node is {@value #RESOURCE} (a test resource), which,
 * when its node becomes the primary, points every PgBouncer named in a list file at that node and
 * reloads it. Without a PgBouncer registered the list file is absent and the callback does nothing,
 * so every cluster has it and the shared one serves every test.
 */
final class FollowPrimaryCallback {

  /** The callback script, on the test class path. */
  static final String RESOURCE = "/patroni/pgbouncer-follow-primary.sh";

  private final Path script;
  private final Path list;
  private final Set<PgBouncerProcess> registered = new LinkedHashSet<>();

  private FollowPrimaryCallback(Path script, Path list) {
    this.script = script;
    this.list = list;
  }

  /**
   * Copies the script into {@code dir} (readable and executable by all, for Patroni running as
   * {@code postgres}); its list file will be {@code dir/pgbouncers}.
   *
   * @throws IllegalArgumentException if {@code dir} holds whitespace, where Patroni and the script
   *     split their arguments
   */
  static FollowPrimaryCallback install(Path dir) {
    oneWord("dir", dir);
    Path script = dir.resolve("pgbouncer-follow-primary.sh");
    try (InputStream in = FollowPrimaryCallback.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new AssertionError(RESOURCE + " is not on the test class path");
      }
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    } catch (IOException e) {
      throw new AssertionError("could not install " + RESOURCE + " in " + dir + ": " + e, e);
    }
    return new FollowPrimaryCallback(script, dir.resolve("pgbouncers"));
  }

  /**
   * The {@code on_role_change} command of {@code node}: the script, the list, the node's address.
   */
  String command(PatroniNode node) {
    return String.join(
        " ", script.toString(), list.toString(), "127.0.0.1", String.valueOf(node.pgPort()));
  }

  /**
   * Runs {@code node}'s callback as Patroni runs it when the node's role becomes {@code role} (as
   * {@code postgres} when the test runs as root), and returns what it printed.
   *
   * @throws AssertionError if it fails or takes more than 10 s
   */
  String run(PatroniNode node, String role) {
    List<String> command = new ArrayList<>(Host.root() ? Host.AS_POSTGRES : List.of());
    command.addAll(List.of(command(node).split(" ")));
    command.addAll(List.of("on_role_change", role, "by-hand"));
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(command + " took more than 10 s");
      }
      String output = new String(process.getInputStream().readAllBytes(), UTF_8);
      if (process.exitValue() != 0) {
        throw new AssertionError(command + " exited with " + process.exitValue() + ": " + output);
      }
      return output;
    } catch (IOException e) {
      throw new AssertionError(command + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /**
   * Names {@code bouncer} in the list file, so that the next node to become the primary points it
   * at itself; closing the registration takes it off the list.
   */
  synchronized Registration register(PgBouncerProcess bouncer) {
    if (!registered.add(bouncer)) {
      throw new IllegalStateException(bouncer + " is registered already");
    }
    writeList();
    return () -> unregister(bouncer);
  }

  private synchronized void unregister(PgBouncerProcess bouncer) {
    if (registered.remove(bouncer)) {
      writeList();
    }
  }

  /** Replaces the list in one rename, so that the script never reads half of it. */
  private void writeList() {
    String lines =
        registered.stream()
            .map(bouncer -> bouncer.ini() + " " + bouncer.pidFile() + "\n")
            .collect(Collectors.joining());
    Path next = list.resolveSibling(list.getFileName() + ".next");
    try {
      if (lines.isEmpty()) {
        Files.deleteIfExists(list);
      } else {
        Files.writeString(next, lines);
        Files.move(next, list, StandardCopyOption.ATOMIC_MOVE);
      }
    } catch (IOException e) {
      throw new AssertionError("could not write " + list + ": " + e, e);
    }
  }

  private static void oneWord(String parameter, Path path) {
    if (path.toString().chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException(
          parameter
              + " must hold no whitespace (the callback's arguments, and the list's, are split"
              + " there), but was '"
              + path
              + "'");
    }
  }

  /** A PgBouncer on the list until closed. */
  interface Registration extends AutoCloseable {
    @Override
    void close();
  }
}
