package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.SchemaNotInstalledException;
import dev.fencing.SchemaVersionException;
import dev.fencing.testkit.db.TestSchema;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The admin contract on the update-in-place engine, and its schema checks. */
class PostgresAdminTest extends PostgresAdminContract {

  @Override
  PostgresFencing.Engine engine() {
    return PostgresFencing.Engine.UPDATE_IN_PLACE;
  }

  @Override
  void finishedDaysAgo(TestSchema schema, int days, long... ids) throws Exception {
    execute(
        schema,
        "update fencing_job set finished_at = now() - interval '"
            + days
            + " days', run_at = now() - interval '"
            + (days + 1)
            + " days' where id in ("
            + Arrays.stream(ids).mapToObj(Long::toString).collect(Collectors.joining(", "))
            + ")");
  }

  /**
   * The install path alters no existing table (an ALTER ... ADD COLUMN would take an ACCESS
   * EXCLUSIVE lock and stop running workers): a job table of an older version is refused by the
   * admin for the version it records (none), named by an install (whose script fails on it and is
   * rolled back whole), and left as it was.
   */
  @Test
  void anOlderJobTableIsNamedAndNotAltered(TestSchema schema) throws Exception {
    execute(
        schema, "create table fencing_job (id bigserial primary key, queue varchar(63) not null)");

    assertThatThrownBy(() -> admin(schema))
        .isInstanceOf(SchemaVersionException.class)
        .hasMessageContaining("records no version");
    assertThatThrownBy(() -> queue(schema, 5))
        .isInstanceOf(SchemaNotInstalledException.class)
        .hasMessageContaining("schema " + schema.name())
        .hasMessageContaining("idempotency_key");
    assertThatThrownBy(() -> admin(schema))
        .isInstanceOf(SchemaVersionException.class)
        .hasMessageContaining("records no version");
  }
}
