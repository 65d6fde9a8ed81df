package dev.fencing.ha;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** This machine as the cluster needs it: the binaries, the user it runs as, files. */
final class Host {

  /** Where Debian's {@code postgresql-15} puts its binaries. */
  static final String PG_BIN = "/usr/lib/postgresql/15/bin";

  /** What to install when a binary is missing. */
  static final String PACKAGES = "apt-get install -y patroni etcd-server postgresql-15";

  /**
   * The start of a command that runs the rest as {@code postgres}, for a test running as root
   * (PostgreSQL, Patroni and PgBouncer refuse root); {@code setpriv} execs, so the pid is the
   * program's own.
   */
  static final List<String> AS_POSTGRES =
      List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups");

  private Host() {}

  static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  /** Gives {@code path} to {@code postgres}, so that Patroni may write there. */
  static void chown(Path path) throws IOException {
    var users = path.getFileSystem().getUserPrincipalLookupService();
    Files.setOwner(path, users.lookupPrincipalByName("postgres"));
    Files.getFileAttributeView(path, PosixFileAttributeView.class)
        .setGroup(users.lookupPrincipalByGroupName("postgres"));
  }

  /** Fails, naming the Debian packages, when a binary the cluster needs is missing here. */
  static void requireBinaries() {
    requireBinaries(System.getenv().getOrDefault("PATH", ""), Path.of(PG_BIN), root());
  }

  /**
   * Fails, naming the Debian packages, unless {@code etcd} and {@code patroni} are on {@code path},
   * {@code postgres} is in {@code pgBin}, and {@code setpriv} is on {@code path} when {@code
   * asRoot}.
   */
  static void requireBinaries(String path, Path pgBin, boolean asRoot) {
    List<String> missing = new ArrayList<>();
    for (String name :
        asRoot ? List.of("etcd", "patroni", "setpriv") : List.of("etcd", "patroni")) {
      if (Stream.of(path.split(File.pathSeparator))
          .noneMatch(entry -> !entry.isEmpty() && Files.isExecutable(Path.of(entry, name)))) {
        missing.add(name + " (not on PATH)");
      }
    }
    if (!Files.isExecutable(pgBin.resolve("postgres"))) {
      missing.add(pgBin.resolve("postgres").toString());
    }
    if (!missing.isEmpty()) {
      throw new AssertionError(
          "a replicated PostgreSQL needs "
              + missing
              + ": install them (Debian/Ubuntu: "
              + PACKAGES
              + "; setpriv is in util-linux)");
    }
  }

  static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(Host::delete);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void delete(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
