package dev.fencing.testkit.process;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Class data sharing for the child JVMs: a worker JVM spent about 2.5 s of CPU starting (loading
 * and linking jOOQ, the driver, the pool), and the property suites start hundreds of them. The
 * first child started with a class path becomes the trainer: it runs with {@code
 * -XX:ArchiveClassesAtExit}, and when it exits in order (closing it sends {@code SIGTERM} first)
 * its loaded classes are written to an archive that every later child maps with {@code
 * -XX:SharedArchiveFile} (about 1.2 s of CPU each, measured on this project's worker). A suite
 * whose children live until it ends, or die by {@code SIGKILL}, would write the archive too late to
 * serve any of them: it first trains a child that takes no part in it ({@link JavaProcess#warmUp}).
 * The JVM archives classes from jars only, so the class path's directories (a module's classes and
 * test classes) are copied into jars first.
 *
 * <p>Everything lives in a directory (under {@code target/} when the tests run in a Maven module)
 * named by a digest of the JVM, the main class and the class path, with every file's size and
 * modification time: a rebuild gets a fresh directory, test JVMs of one module (surefire forks)
 * share one under a file lock, and a stale or broken archive is only slower (the JVM maps what it
 * validates and ignores the rest; its messages go to standard error). {@code
 * -Dfencing.testkit.sharedClasses=false} turns it off.
 */
final class SharedClasses {

  /** What a child is started with: its class path and the options that share classes. */
  record Launch(String classPath, List<String> options, boolean trainer, Path archive) {

    /**
     * Called when the trainer exited: keeps its archive if it exited in order, else lets the next
     * child train.
     */
    void trainerExited(int exitCode) {
      if (!trainer) {
        return;
      }
      Path written = inProgress(archive);
      try {
        // 0 after "quit", 143 after SIGTERM: the JVM wrote the archive on its way out
        boolean orderly = exitCode == 0 || exitCode == 143;
        if (orderly && Files.exists(written) && Files.size(written) > 0) {
          Files.move(written, archive, StandardCopyOption.ATOMIC_MOVE);
        } else {
          Files.deleteIfExists(written);
          Files.deleteIfExists(claim(archive));
        }
      } catch (IOException e) {
        // no archive: children start as they did before
      }
    }
  }

  private static final String ENABLED = "fencing.testkit.sharedClasses";

  /** Class paths whose jars this JVM has made ready, by their directory. */
  private static final ConcurrentHashMap<String, String> READY = new ConcurrentHashMap<>();

  /** The JVM's own logging, warnings only, to standard error: a child's output is its protocol. */
  static final List<String> QUIET_JVM =
      List.of("-Xlog:disable", "-Xlog:all=warning:stderr", "-XX:+DisplayVMOutputToStderr");

  private SharedClasses() {}

  /** Returns how to start {@code mainClass} on {@code classPath}, sharing classes if it can. */
  static Launch launch(String classPath, String mainClass) {
    if (!Boolean.parseBoolean(System.getProperty(ENABLED, "true"))) {
      return new Launch(classPath, QUIET_JVM, false, Path.of(""));
    }
    try {
      Path home = directory(classPath, mainClass);
      String jars = READY.computeIfAbsent(home.toString(), h -> jarred(home, classPath));
      Path archive = home.resolve("classes.jsa");
      List<String> options = new ArrayList<>(QUIET_JVM);
      if (Files.exists(archive)) {
        options.add("-XX:SharedArchiveFile=" + archive);
        return new Launch(jars, options, false, archive);
      }
      try {
        Files.createFile(claim(archive));
      } catch (FileAlreadyExistsException training) {
        // another child trains; this one starts without
        return new Launch(jars, options, false, archive);
      }
      options.add("-XX:ArchiveClassesAtExit=" + inProgress(archive));
      return new Launch(jars, options, true, archive);
    } catch (IOException | UncheckedIOException e) {
      return new Launch(classPath, QUIET_JVM, false, Path.of(""));
    }
  }

  static Path claim(Path archive) {
    return archive.resolveSibling("training");
  }

  private static Path inProgress(Path archive) {
    return archive.resolveSibling("classes.jsa.part");
  }

  /** The directory for this JVM, main class and class path as its files are now. */
  private static Path directory(String classPath, String mainClass) throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
    update(digest, System.getProperty("java.home") + "\n" + Runtime.version() + "\n" + mainClass);
    for (String entry : entries(classPath)) {
      Path path = Path.of(entry);
      update(digest, "\n" + entry);
      if (Files.isDirectory(path)) {
        try (Stream<Path> files = Files.walk(path)) {
          for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
            stamp(digest, file);
          }
        }
      } else if (Files.isRegularFile(path)) {
        stamp(digest, path);
      }
    }
    String name = HexFormat.of().formatHex(digest.digest()).substring(0, 24);
    // under the build's target directory when the tests run in a module (surefire runs them there),
    // so that a clean build removes them; else in the temporary directory
    Path target = Path.of(System.getProperty("user.dir"), "target");
    Path base = Files.isDirectory(target) ? target : Path.of(System.getProperty("java.io.tmpdir"));
    Path home = base.resolve("fencing-testkit-classes").resolve(name);
    Files.createDirectories(home);
    return home;
  }

  private static void stamp(MessageDigest digest, Path file) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
    update(
        digest,
        "\n" + file + " " + attributes.size() + " " + attributes.lastModifiedTime().toMillis());
  }

  private static void update(MessageDigest digest, String text) {
    digest.update(text.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> entries(String classPath) {
    return Stream.of(classPath.split(File.pathSeparator)).filter(e -> !e.isEmpty()).toList();
  }

  /**
   * Returns the class path with each directory replaced by a jar of it, made once per directory
   * {@code home} under a file lock that the test JVMs of one module share.
   */
  private static String jarred(Path home, String classPath) {
    try (FileChannel lock =
            FileChannel.open(
                home.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = lock.lock()) {
      List<String> result = new ArrayList<>();
      int index = 0;
      for (String entry : entries(classPath)) {
        Path path = Path.of(entry);
        if (!Files.isDirectory(path)) {
          result.add(entry);
          continue;
        }
        Path jar = home.resolve("dir-" + index++ + ".jar");
        if (!Files.exists(jar)) {
          Path part = home.resolve(jar.getFileName() + ".part");
          write(path, part);
          Files.move(part, jar, StandardCopyOption.ATOMIC_MOVE);
        }
        result.add(jar.toString());
      }
      return String.join(File.pathSeparator, result);
    } catch (IOException e) {
      throw new UncheckedIOException("could not prepare the class path in " + home, e);
    }
  }

  private static void write(Path directory, Path jar) throws IOException {
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file);
        Stream<Path> files = Files.walk(directory)) {
      for (Path each : files.filter(Files::isRegularFile).sorted().toList()) {
        String name = directory.relativize(each).toString().replace(File.separatorChar, '/');
        out.putNextEntry(new JarEntry(name));
        Files.copy(each, out);
        out.closeEntry();
      }
    }
  }
}
