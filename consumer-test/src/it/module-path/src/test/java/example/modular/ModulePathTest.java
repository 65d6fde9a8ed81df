package example.modular;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.db.PostgresFixture;
import java.io.File;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * fencing-postgres as a module: its published jar's descriptor requires no jOOQ module and exports
 * only the front door, and an application on the module path (this project's main, run with {@code
 * java -p ... -m}) resolves it with what Maven gives it and runs a job.
 */
class ModulePathTest {

  private static final Path HERE = Path.of(System.getProperty("basedir"));

  @Test
  void theDescriptorRequiresNoJooqAndExportsTheDoorAndTheAdminViewOnly() throws Exception {
    ModuleReference postgres =
        ModuleFinder.of(modulePath()).find("dev.fencing.postgres").orElseThrow();
    ModuleDescriptor descriptor = postgres.descriptor();
    assertThat(descriptor.isAutomatic()).isFalse();
    assertThat(descriptor.requires())
        .extracting(ModuleDescriptor.Requires::name)
        .noneMatch(name -> name.contains("jooq") || name.contains("r2dbc"));
    assertThat(descriptor.exports())
        .extracting(ModuleDescriptor.Exports::source)
        .containsExactlyInAnyOrder("dev.fencing.postgres", "dev.fencing.postgres.admin");
    assertThat(descriptor.packages()).contains("dev.fencing.postgres.internal.shaded.jooq.impl");
  }

  @Test
  void anApplicationOnTheModulePathRunsAJob() throws Exception {
    PostgresFixture.Database db = PostgresFixture.urlOrEmbedded();
    String schema = db.freshSchema("modular");
    String url = db.jdbcUrl();
    if (!db.user().isEmpty()) {
      url += (url.contains("?") ? "&" : "?") + "user=" + db.user() + "&password=" + db.password();
    }
    Process app =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-p",
                HERE.resolve("target/classes") + File.pathSeparator + runtimeClassPath(),
                "-m",
                "example.modular/example.modular.Main",
                url,
                schema)
            .redirectErrorStream(true)
            .start();
    String printed = new String(app.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(app.waitFor(60, TimeUnit.SECONDS)).isTrue();
    System.out.println("on the module path, the application printed:\n" + printed);
    assertThat(app.exitValue()).as(printed).isZero();
    // the last line is the application's; before it, the library's report of the migration the
    // first build applied (read from the jar on the module path), through SLF4J to slf4j-simple,
    // which the module system found as a provider of SLF4J's service
    assertThat(printed.strip().lines().toList())
        .last()
        .isEqualTo("example.modular: Accepted[key=1, epoch=epoch 1, repeat=false]");
    assertThat(printed)
        .contains(
            "INFO dev.fencing.postgres.internal.Installer - schema "
                + schema
                + ": applied migration 1 (fencing schema)");
    db.dropSchema(schema);
  }

  private static Path[] modulePath() throws Exception {
    Set<Path> jars =
        Set.of(runtimeClassPath().split(File.pathSeparator)).stream()
            .map(Path::of)
            .collect(Collectors.toSet());
    return jars.toArray(Path[]::new);
  }

  private static String runtimeClassPath() throws Exception {
    return Files.readString(HERE.resolve("target/runtime-classpath.txt")).strip();
  }
}
