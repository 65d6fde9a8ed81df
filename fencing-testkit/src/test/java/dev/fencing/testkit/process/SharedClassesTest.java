package dev.fencing.testkit.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedClassesTest {

  /** A child that says it is ready and waits for the end of its input. */
  public static final class Child {
    public static void main(String[] args) throws IOException {
      System.out.println("ready");
      System.out.flush();
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }
  }

  /** A child that says it is ready and echoes every line of its input. */
  public static final class Echo {
    public static void main(String[] args) throws IOException {
      System.out.println("ready");
      System.out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line; (line = in.readLine()) != null; ) {
        System.out.println(line);
        System.out.flush();
      }
    }
  }

  @Test
  void aWarmUpChildIsArchivedSoThatNoChildOfTheTestIs() throws IOException {
    String classPath = System.getProperty("java.class.path", "");
    Path archive = SharedClasses.launch(classPath, Echo.class.getName()).archive();
    // a fresh start, also when an earlier run of this test left its archive
    Files.deleteIfExists(archive);
    Files.deleteIfExists(SharedClasses.claim(archive));
    List<Long> exercised = new ArrayList<>();

    JavaProcess.warmUp(
        "echo-warm-up",
        List.of(),
        Echo.class,
        List.of(),
        child -> {
          child.await(0, "ready"::equals, Duration.ofSeconds(60));
          child.send("work");
          child.await(1, "work"::equals, Duration.ofSeconds(60));
          exercised.add(child.pid());
        });

    assertThat(exercised).hasSize(1);
    assertThat(archive).as("the warm-up child's classes, archived when it was closed").exists();
    JavaProcess.warmUp("again", List.of(), Echo.class, List.of(), child -> exercised.add(0L));
    assertThat(exercised).as("no second warm-up once the archive exists").hasSize(1);
    SharedClasses.Launch next = SharedClasses.launch(classPath, Echo.class.getName());
    assertThat(next.trainer()).isFalse();
    assertThat(next.options()).contains("-XX:SharedArchiveFile=" + archive);
  }

  @Test
  void directoriesBecomeJarsAndOnlyTheFirstChildTrains(@TempDir Path dir) throws IOException {
    Path classes = Files.createDirectories(dir.resolve("classes/a"));
    Files.writeString(classes.resolve("A.class"), "not really a class");
    String classPath = dir.resolve("classes") + File.pathSeparator + dir.resolve("absent.jar");

    SharedClasses.Launch first = SharedClasses.launch(classPath, "a.A");
    SharedClasses.Launch second = SharedClasses.launch(classPath, "a.A");

    List<String> entries = List.of(first.classPath().split(File.pathSeparator));
    assertThat(entries).hasSize(2);
    assertThat(entries.get(0)).endsWith(".jar");
    assertThat(Files.isRegularFile(Path.of(entries.get(0)))).isTrue();
    assertThat(entries.get(1)).isEqualTo(dir.resolve("absent.jar").toString());
    assertThat(first.trainer()).isTrue();
    assertThat(first.options()).anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
    assertThat(second.trainer()).isFalse();
    assertThat(second.classPath()).isEqualTo(first.classPath());
    assertThat(second.options())
        .noneMatch(o -> o.startsWith("-XX:Shared") || o.startsWith("-XX:ArchiveClasses"));

    first.trainerExited(137);
    assertThat(SharedClasses.launch(classPath, "a.A").trainer())
        .as("a trainer killed before it wrote the archive lets the next child train")
        .isTrue();
  }

  @Test
  void theFirstChildWritesTheArchiveWhenClosedAndTheNextMapsIt() {
    try (JavaProcess child = JavaProcess.start("child", Child.class, List.of())) {
      child.await(0, "ready"::equals, Duration.ofSeconds(60));
    }
    SharedClasses.Launch next =
        SharedClasses.launch(System.getProperty("java.class.path", ""), Child.class.getName());
    assertThat(next.options())
        .as("the archive the first child wrote on its way out")
        .contains("-XX:SharedArchiveFile=" + next.archive());
    try (JavaProcess child = JavaProcess.start("child", Child.class, List.of())) {
      child.await(0, "ready"::equals, Duration.ofSeconds(60));
      assertThat(child.stderr()).as("the JVM's complaints about the archive").doesNotContain("cds");
    }
  }
}
