package dev.fencing.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jooq.impl.DSL.inline;

import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.SQLException;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * The failover generation, evaluated by PostgreSQL: an epoch handed out in a later generation is
 * larger than every epoch of an earlier one, and a server that never failed over counts 1, 2, 3...
 * The promotion itself is shown with a replicated cluster in {@code fencing-ha}.
 */
@FencingDatabase
class GenerationTest {

  private static final long G1 = 1L << 32;
  private static final long G2 = 2L << 32;

  @Test
  void aServerThatNeverFailedOverIsInGenerationZero(TestSchema schema) throws SQLException {
    try (Connection c = schema.dataSource().getConnection()) {
      DSLContext sql = DSL.using(c, SQLDialect.POSTGRES);
      long timeline =
          sql.fetchValue(
              DSL.field("(select timeline_id::bigint from pg_control_checkpoint())", Long.class));
      assertThat(sql.select(Generation.CURRENT).fetchOne().value1())
          .isEqualTo(timeline - 1)
          .isZero();
      assertThat(sql.select(Generation.first()).fetchOne().value1()).isEqualTo(1L);
      assertThat(sql.select(Generation.next(inline(1L))).fetchOne().value1()).isEqualTo(2L);
    }
  }

  @Test
  void aLaterGenerationStartsAboveEveryEpochOfAnEarlierOne(TestSchema schema) throws SQLException {
    try (Connection c = schema.dataSource().getConnection()) {
      DSLContext sql = DSL.using(c, SQLDialect.POSTGRES);
      // the old primary raised the job to 7 in generation 1; the promoted standby (generation 2)
      // may have only 5 of it, or all of it: either way its next claim is above both
      assertThat(next(sql, G1 + 5, 2)).isEqualTo(G2 + 1).isGreaterThan(G1 + 7);
      assertThat(next(sql, G1 + 7, 2)).isEqualTo(G2 + 1);
      assertThat(next(sql, 5, 1)).isEqualTo(G1 + 1);
      // within a generation, and on a row from a later one, it counts on
      assertThat(next(sql, G2 + 3, 2)).isEqualTo(G2 + 4);
      assertThat(next(sql, G2 + 3, 1)).isEqualTo(G2 + 4);
      assertThat(next(sql, 5, 0)).isEqualTo(6);
      assertThat(sql.select(Generation.first(inline(3L))).fetchOne().value1())
          .isEqualTo((3L << 32) + 1);
    }
  }

  private static long next(DSLContext sql, long epoch, long generation) {
    Field<Long> next = Generation.next(inline(epoch), inline(generation));
    return sql.select(next).fetchOne().value1();
  }
}
