package dev.fencing.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.SchemaVersionException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The migration scripts as shipped: the installer's list is the directory's, each records its own
 * version last, none holds a statement that would lock out running workers or remove what an older
 * library reads, and the rule for which library may run on which schema.
 */
class InstallerScriptsTest {

  private static final Path DIRECTORY = Path.of("src/main/resources", Installer.LOCATION);

  /**
   * Statements no script may hold: each takes an ACCESS EXCLUSIVE lock on a live table (ALTER
   * TABLE, but for SET of storage parameters, which takes SHARE UPDATE EXCLUSIVE and so never waits
   * for a worker's write; CLUSTER, TRUNCATE, VACUUM FULL, LOCK), or drops or renames what a library
   * of an older compatible version reads (docs/UPGRADING.md). A contract step that must drop
   * something raises compatible_from and says why here.
   */
  private static final Pattern FORBIDDEN =
      Pattern.compile(
          "\\b(alter\\s+table(?!\\s+(if\\s+exists\\s+)?[a-z_][a-z0-9_]*\\s+set\\s*\\()|drop\\s+(table|column|index|function|view|sequence)|rename|truncate"
              + "|cluster|vacuum\\s+full|lock\\s+table)\\b");

  @Test
  void theInstallersListIsTheDirectorysInVersionOrder() throws IOException {
    try (Stream<Path> files = Files.list(DIRECTORY)) {
      List<String> names =
          files.map(p -> p.getFileName().toString()).sorted(Installer::byVersion).toList();
      assertThat(Installer.SCRIPTS).containsExactlyElementsOf(names);
    }
    assertThat(Installer.migrations())
        .extracting(Installer.Migration::version)
        .containsExactly(
            java.util.stream.IntStream.rangeClosed(1, Installer.latest())
                .boxed()
                .toArray(Integer[]::new));
  }

  @Test
  void everyScriptRecordsItsOwnVersionAsItsLastStatement() {
    for (Installer.Migration m : Installer.migrations()) {
      String code = withoutComments(m.sql()).strip();
      String last = code.substring(code.lastIndexOf(';', code.length() - 2) + 1).strip();
      assertThat(last)
          .as(m.resource())
          .startsWith("INSERT INTO fencing_schema_version")
          .contains("VALUES (" + m.version() + ",");
    }
  }

  @Test
  void noScriptLocksOutRunningWorkersOrRemovesWhatAnOlderLibraryReads() {
    for (Installer.Migration m : Installer.migrations()) {
      String code = withoutComments(m.sql()).toLowerCase(Locale.ROOT);
      assertThat(FORBIDDEN.matcher(code).find())
          .as(
              "%s holds %s",
              m.resource(), FORBIDDEN.matcher(code).results().map(r -> r.group()).toList())
          .isFalse();
    }
  }

  @Test
  void theForbiddenPatternCatchesWhatItNames() {
    for (String statement :
        List.of(
            "alter table fencing_job add column priority int",
            "ALTER  TABLE x",
            "drop table fencing_job",
            "drop column x",
            "lock table fencing_job",
            "vacuum full fencing_job",
            "truncate fencing_job")) {
      assertThat(FORBIDDEN.matcher(statement.toLowerCase(Locale.ROOT)).find())
          .as(statement)
          .isTrue();
    }
    for (String allowed :
        List.of(
            "create table if not exists fencing_job_alter (x int)",
            "alter table fencing_job set (fillfactor = 90)",
            "alter table if exists fencing_job set(autovacuum_vacuum_threshold = 1)")) {
      assertThat(FORBIDDEN.matcher(allowed).find()).as(allowed).isFalse();
    }
  }

  @Test
  void aLibraryRunsOnItsVersionAndOnANewerOneThatStillDeclaresItselfCompatible() {
    int mine = Installer.latest();
    Optional<EngineKind> engine = Optional.of(EngineKind.APPEND_ONLY);
    assertThat(Installer.refusal("s", new Installer.State(mine, 1, true, engine))).isNull();
    assertThat(Installer.refusal("s", new Installer.State(mine + 1, mine, true, engine))).isNull();
    // no tables at all: the first statement says the schema is not installed
    assertThat(Installer.refusal("s", new Installer.State(0, 0, false, Optional.empty()))).isNull();

    SchemaVersionException unversioned =
        Installer.refusal("s", new Installer.State(0, 0, true, engine));
    assertThat(unversioned).isNotNull();
    assertThat(unversioned.found()).isZero();
    assertThat(unversioned.expected()).isEqualTo(mine);
    assertThat(unversioned.getMessage())
        .contains("schema s holds fencing tables but records no version")
        .contains("install(true)")
        .contains(Installer.LOCATION);

    SchemaVersionException older =
        Installer.refusal("s", new Installer.State(mine - 1, 1, true, engine));
    if (mine > 1) {
      assertThat(older).isNotNull();
      assertThat(older.getMessage()).contains("is at version " + (mine - 1));
    }

    SchemaVersionException contracted =
        Installer.refusal("s", new Installer.State(mine + 2, mine + 1, true, engine));
    assertThat(contracted).isNotNull();
    assertThat(contracted.found()).isEqualTo(mine + 2);
    assertThat(contracted.expected()).isEqualTo(mine);
    assertThat(contracted.getMessage())
        .contains("no library older than schema version " + (mine + 1))
        .contains("upgrade the library");
  }

  private static String withoutComments(String sql) {
    return sql.replaceAll("--[^\n]*", "");
  }
}
