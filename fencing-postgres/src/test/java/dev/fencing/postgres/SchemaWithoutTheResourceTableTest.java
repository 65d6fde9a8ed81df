package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Acquisition;
import dev.fencing.Epoch;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.ResourceOwnership;
import dev.fencing.testkit.FencingDatabase;
import dev.fencing.testkit.TestSchema;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A schema installed before the resource table existed (the job table only, as the earlier jar
 * shipped it, kept in the test resources) gains the table when PostgresOwnership is built, and its
 * jobs are left as they were.
 */
@FencingDatabase
class SchemaWithoutTheResourceTableTest {

  @Test
  void buildingOwnershipOnAnOldSchemaAddsTheTableAndKeepsTheJobs(TestSchema schema)
      throws Exception {
    String old;
    try (InputStream in = getClass().getResourceAsStream("schema-before-resources.sql")) {
      old = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(old).doesNotContain("fencing_resource");
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("set search_path to \"" + schema.name() + "\"");
      s.execute(old);
    }
    FencedQueue queue =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).install(false).build();
    long id = queue.enqueue("q", "{\"n\":1}");

    ResourceOwnership owners =
        PostgresOwnership.builder(schema.dataSource()).schema(schema.name()).build();
    // claimed after the install: the claim writes the owners column, which the install adds
    Job claimed = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();
    Acquisition acquisition = owners.acquire("account-1", "p1", Duration.ofMinutes(5));

    assertThat(acquisition).isInstanceOf(Acquisition.Acquired.class);
    assertThat(((Acquisition.Acquired) acquisition).ownership().epoch()).isEqualTo(Epoch.FIRST);
    assertThat(queue.find(id).orElseThrow().epoch()).isEqualTo(claimed.epoch().value());
    assertThat(queue.complete(claimed.lease(), "{}").isAccepted()).isTrue();
  }
}
