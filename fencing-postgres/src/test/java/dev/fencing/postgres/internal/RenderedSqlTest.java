package dev.fencing.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jooq.impl.DSL.select;

import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/** A rendered statement refuses a query it cannot bind by name, and binds by name on PostgreSQL. */
@FencingDatabase
class RenderedSqlTest {

  private static final DSLContext DSL_CONTEXT = DSL.using(SQLDialect.POSTGRES);

  @Test
  void aBindValueNotMadeByParametersIsRefused() {
    RenderedSql.Parameters parameters = new RenderedSql.Parameters();
    assertThatThrownBy(() -> new RenderedSql(DSL_CONTEXT, select(DSL.val(42L)), parameters))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a bind value not made by Parameters: 42");
  }

  @Test
  void aDeclaredParameterTheQueryDoesNotUseIsRefused() {
    RenderedSql.Parameters parameters = new RenderedSql.Parameters();
    var used = parameters.bigint("used");
    parameters.bigint("unused");
    assertThatThrownBy(() -> new RenderedSql(DSL_CONTEXT, select(used), parameters))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("parameter unused was not bound in select");
  }

  @Test
  void aParameterNameIsDeclaredOnce() {
    RenderedSql.Parameters parameters = new RenderedSql.Parameters();
    parameters.varchar("a");
    assertThatThrownBy(() -> parameters.bigint("a"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must be new, but was 'a'");
  }

  @Test
  void valuesAreBoundByNameAndAMissingOneIsRefused(TestSchema schema) throws Exception {
    RenderedSql.Parameters parameters = new RenderedSql.Parameters();
    var a = parameters.bigint("a");
    var b = parameters.bigints("b");
    RenderedSql sql =
        new RenderedSql(
            DSL_CONTEXT, select(a.minus(DSL.field("cardinality({0})", Long.class, b))), parameters);
    try (Connection c = schema.dataSource().getConnection()) {
      try (PreparedStatement s = sql.prepare(c, Map.of("a", 10L, "b", new Long[] {1L, 2L, 3L}));
          ResultSet r = s.executeQuery()) {
        r.next();
        assertThat(r.getLong(1)).isEqualTo(7);
      }
      assertThatThrownBy(() -> sql.prepare(c, Map.of("a", 10L)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("no value for b in select");
    }
  }
}
