package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.Ownership;
import dev.fencing.ResourceOwnership;
import dev.fencing.StoreUnavailableException;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.db.TestSchema;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

@FencingDatabase
class OwnershipInputCheckingTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void badNamesOwnersAndLeaseLengthsAreRefusedByNameAndWriteNothing(TestSchema schema) {
    ResourceOwnership owners =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build().ownership();
    String tooLong = "r".repeat(201);
    refused(() -> owners.acquire(tooLong, "p1", LONG), "resource", "'" + "r".repeat(120) + "...'");
    refused(() -> owners.acquire("007", "p1", LONG), "resource", "'007'");
    refused(() -> owners.acquire("..", "p1", LONG), "resource", "'..'");
    refused(() -> owners.acquire("a b", "p1", LONG), "resource", "'a b'");
    refused(() -> owners.acquire("é", "p1", LONG), "resource", "'é'");
    refused(() -> owners.acquire("ok", null, LONG), "owner", "null");
    refused(() -> owners.acquire("ok", "o".repeat(201), LONG), "owner", "'ooo");
    refused(() -> owners.acquire("ok", "a\0b", LONG), "owner", "'a");
    refused(() -> owners.acquire("ok", "\uD800", LONG), "owner", "'");
    refused(
        () -> owners.acquire("ok", "p1", Duration.ofHours(24).plusNanos(1)),
        "leaseLength",
        "PT24H0.000000001S");
    refused(() -> owners.acquire("ok", "p1", Duration.ofNanos(999_999)), "leaseLength", "PT");
    refused(() -> owners.holder(null), "resource", "null");
    assertThat(rowCount(schema)).isZero();

    Ownership forRenewal = new Ownership("ok", "p1", Epoch.FIRST, Instant.now());
    refused(() -> owners.renew(forRenewal, null), "leaseLength", "null");
    refused(() -> owners.renew(forRenewal, Duration.ofDays(2)), "leaseLength", "PT48H");
    assertThatThrownBy(() -> owners.renew(null, LONG))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("ownership");
    assertThatThrownBy(() -> owners.release(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("ownership");
    assertThat(rowCount(schema)).isZero();
  }

  @Test
  void badSettingsAreRefusedByNameBeforeAnySql(TestSchema schema) throws Exception {
    for (String bad : List.of("y; drop table", "Owners", "1abc", "", "y\"b", "y".repeat(64))) {
      assertThatThrownBy(
              () -> PostgresFencing.builder(schema.dataSource()).schema(bad).build().ownership())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("schema must")
          .hasMessageEndingWith("but was '" + bad + "'");
    }
    assertThatThrownBy(
            () -> PostgresFencing.builder(schema.dataSource()).schema(null).build().ownership())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("but was null");
    assertThatThrownBy(
            () ->
                PostgresFencing.builder(schema.dataSource())
                    .transientRetries(101)
                    .build()
                    .ownership())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("transientRetries must be between 0 and 100, but was 101");
    assertThatThrownBy(
            () ->
                PostgresFencing.builder(schema.dataSource())
                    .retryWait(Duration.ofMillis(-1))
                    .build()
                    .ownership())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("retryWait must");
    assertThatThrownBy(() -> PostgresFencing.builder(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("dataSource");
    assertThat(
            Rows.select(
                schema.dataSource(),
                schema.name(),
                "select nspname from pg_namespace where nspname like 'y%' or nspname = 'Owners'"))
        .isEmpty();
    assertThat(
            Rows.select(
                schema.dataSource(),
                schema.name(),
                "select table_name from information_schema.tables where table_schema = ?",
                schema.name()))
        .as("nothing installed in the test's schema either")
        .isEmpty();
  }

  @Test
  void anUnreachableDatabaseIsAStoreUnavailableExceptionNamingItWithinTheConnectTimeout()
      throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    PostgresFixture.Database nowhere =
        new PostgresFixture.Database(
            "jdbc:postgresql://127.0.0.1:" + port + "/postgres?connectTimeout=2",
            "postgres",
            "",
            "nowhere");
    long started = System.nanoTime();
    assertThatThrownBy(() -> PostgresFencing.builder(nowhere.dataSource()).build().ownership())
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("schema fencing")
        .hasMessageContaining("127.0.0.1:" + port);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    ResourceOwnership uninstalled =
        PostgresFencing.builder(nowhere.dataSource()).install(false).build().ownership();
    assertThatThrownBy(() -> uninstalled.holder("account"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("127.0.0.1:" + port);
  }

  private static long rowCount(TestSchema schema) {
    return (Long)
        Rows.select(
                schema.dataSource(), schema.name(), "select count(*) as n from fencing_resource")
            .getFirst()
            .get("n");
  }

  private static void refused(Runnable call, String parameter, String valueStart) {
    assertThatThrownBy(call::run)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(parameter + " must")
        .hasMessageContaining("but was " + valueStart);
  }
}
