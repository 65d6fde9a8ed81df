package dev.fencing.testkit.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

class PostgresFixtureTest {

  @Test
  void theSharedDatabaseAnswers() throws Exception {
    PostgresFixture.Database db = PostgresFixture.get();
    try (Connection c = db.dataSource().getConnection();
        ResultSet r = c.createStatement().executeQuery("select 1")) {
      assertThat(r.next()).isTrue();
    }
  }

  @Test
  void aUrlInTheEnvironmentIsUsedAsItIs() {
    PostgresFixture.Database shared = PostgresFixture.get();
    PostgresFixture.Database viaUrl =
        PostgresFixture.start(
            Map.of(
                PostgresFixture.URL_VARIABLE, shared.jdbcUrl(),
                PostgresFixture.USER_VARIABLE, shared.user()));
    assertThat(viaUrl.source()).isEqualTo("url");
    assertThat(viaUrl.jdbcUrl()).isEqualTo(shared.jdbcUrl());
    String schema = viaUrl.freshSchema("fixture");
    viaUrl.dropSchema(schema);
  }

  @Test
  void withNoRouteItFailsAndSaysWhatToSetInsteadOfSkipping() {
    assertThatThrownBy(() -> PostgresFixture.start(Map.of(PostgresFixture.MODE_VARIABLE, "url")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(PostgresFixture.URL_VARIABLE)
        .hasMessageContaining("Docker");
  }

  @Test
  void aUrlNeedsNeitherTestcontainersNorEmbeddedPostgres() throws Exception {
    try (URLClassLoader loader = withoutOptionalLibraries()) {
      assertThatThrownBy(
              () -> loader.loadClass("io.zonky.test.db.postgres.embedded.EmbeddedPostgres"))
          .isInstanceOf(ClassNotFoundException.class);
      assertThatThrownBy(() -> loader.loadClass("org.testcontainers.DockerClientFactory"))
          .isInstanceOf(ClassNotFoundException.class);

      Object db =
          start(
              loader,
              Map.of(PostgresFixture.URL_VARIABLE, "jdbc:postgresql://localhost:1/nowhere"));

      assertThat(db.getClass().getClassLoader()).isSameAs(loader);
      assertThat(db.toString()).contains("source=url");
    }
  }

  @Test
  void aRouteWhoseLibraryIsMissingNamesTheCoordinatesToAdd() throws Exception {
    try (URLClassLoader loader = withoutOptionalLibraries()) {
      assertThat(failure(loader, Map.of(PostgresFixture.MODE_VARIABLE, "embedded")))
          .contains("not on the class path (add " + PostgresFixture.EMBEDDED_COORDINATES);
      assertThat(failure(loader, Map.of(PostgresFixture.MODE_VARIABLE, "testcontainers")))
          .contains("not on the class path (add " + PostgresFixture.TESTCONTAINERS_COORDINATES);
      assertThat(failure(loader, Map.of()))
          .contains("not on the class path (add " + PostgresFixture.EMBEDDED_COORDINATES)
          .contains("not on the class path (add " + PostgresFixture.TESTCONTAINERS_COORDINATES)
          .contains(PostgresFixture.URL_VARIABLE);
    }
  }

  /**
   * The test kit's classes and its required JDBC driver, and none of its optional libraries: the
   * class path of a build that gives the fixture a URL.
   */
  private static URLClassLoader withoutOptionalLibraries() {
    return new URLClassLoader(
        new URL[] {location(PostgresFixture.class), location(PGSimpleDataSource.class)},
        ClassLoader.getPlatformClassLoader());
  }

  private static URL location(Class<?> type) {
    return type.getProtectionDomain().getCodeSource().getLocation();
  }

  /** Calls {@code PostgresFixture.start(env)} as loaded by {@code loader}. */
  private static Object start(ClassLoader loader, Map<String, String> env) throws Exception {
    Method start =
        loader.loadClass(PostgresFixture.class.getName()).getDeclaredMethod("start", Map.class);
    start.setAccessible(true);
    try {
      return start.invoke(null, env);
    } catch (InvocationTargetException e) {
      throw (Exception) e.getCause();
    }
  }

  private static String failure(ClassLoader loader, Map<String, String> env) {
    Throwable thrown = catchThrowable(() -> start(loader, env));
    assertThat(thrown).isInstanceOf(IllegalStateException.class);
    return thrown.getMessage();
  }

  @Test
  void aSchemaNameIsOnlyEverAName() throws Exception {
    PostgresFixture.Database db = PostgresFixture.get();
    String name = "x\"; drop schema public cascade; --";
    db.recreateSchema(name);
    try {
      assertThat(schemas(db)).contains(name, "public");
    } finally {
      db.dropSchema(name);
    }
    assertThat(schemas(db)).doesNotContain(name).contains("public");
  }

  private static List<String> schemas(PostgresFixture.Database db) throws Exception {
    List<String> names = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection();
        ResultSet r =
            c.createStatement().executeQuery("select nspname from pg_catalog.pg_namespace")) {
      while (r.next()) {
        names.add(r.getString(1));
      }
    }
    return names;
  }
}
