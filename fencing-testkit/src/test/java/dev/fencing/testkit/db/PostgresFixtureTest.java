package dev.fencing.testkit.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

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
