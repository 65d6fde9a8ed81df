package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.FencedReceiver.Receipt;
import dev.fencing.SchemaNotInstalledException;
import dev.fencing.StoreUnavailableException;
import dev.fencing.testkit.contract.FencedReceiverContract;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@FencingDatabase
class PostgresReceiverTest extends FencedReceiverContract {

  private TestSchema schema;
  private FencedReceiver receiver;

  @BeforeEach
  void install(TestSchema schema) {
    this.schema = schema;
    this.receiver = fencing(schema.sharedPool()).receiver("default");
  }

  @Override
  protected FencedReceiver receiver() {
    return receiver;
  }

  private PostgresFencing.Builder builder(DataSource dataSource) {
    return PostgresFencing.builder(dataSource).schema(schema.name());
  }

  private PostgresFencing fencing(DataSource dataSource) {
    return builder(dataSource).build();
  }

  @Test
  void receiversWithDifferentNamesShareTheTableButNotTheKeys() {
    FencedReceiver emails = fencing(schema.sharedPool()).receiver("emails");
    FencedReceiver ledger = fencing(schema.sharedPool()).receiver("ledger");
    emails.deliver("k", Epoch.of(5), payload(5));

    assertThat(ledger.deliver("k", Epoch.of(1), payload(1)))
        .isEqualTo(new FencedOutcome.Accepted("k", Epoch.of(1), false));
    assertThat(emails.newest("k")).contains(new Receipt("k", Epoch.of(5), payload(5)));
    assertThat(ledger.newest("k")).contains(new Receipt("k", Epoch.of(1), payload(1)));
    assertThat(receiver.newest("k")).isEmpty();
  }

  @Test
  void installingAgainKeepsTheReceipts() {
    receiver.deliver("k", Epoch.of(2), payload(2));

    FencedReceiver again = fencing(schema.sharedPool()).receiver("default");

    assertThat(again.newest("k")).contains(new Receipt("k", Epoch.of(2), payload(2)));
  }

  @Test
  void concurrentInstallsIntoANewSchemaDoNotCollide() throws Exception {
    String fresh = schema.name() + "_new";
    try {
      CyclicBarrier start = new CyclicBarrier(8);
      List<FencedReceiver> receivers =
          runAll(
              8,
              () -> {
                start.await();
                return PostgresFencing.builder(schema.dataSource())
                    .schema(fresh)
                    .build()
                    .receiver("default");
              });

      receivers.getFirst().deliver("k", Epoch.of(1), payload(1));
      assertThat(receivers.getLast().newest("k")).isPresent();
    } finally {
      schema.database().dropSchema(fresh);
    }
  }

  @Test
  void aSchemaNameWithSqlInItIsRefused() {
    assertThatThrownBy(
            () -> PostgresFencing.builder(schema.dataSource()).schema("x; drop table").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("schema must be a plain identifier")
        .hasMessageEndingWith("but was 'x; drop table'");
  }

  @Test
  void aReceiverNameThatIsNotAnIdentifierIsRefused() {
    assertThatThrownBy(() -> fencing(schema.sharedPool()).receiver("Ledger A"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("name must be a plain identifier");
  }

  @Test
  void withoutInstallAMissingTableFailsAtOnceWithoutRetrying() {
    FlakyDataSource counting = new FlakyDataSource(schema.dataSource(), 0);
    FencedReceiver uninstalled =
        PostgresFencing.builder(counting)
            .schema(schema.name() + "_missing")
            .install(false)
            .build()
            .receiver("default");

    assertThatThrownBy(() -> uninstalled.deliver("k", Epoch.of(1), payload(1)))
        .isInstanceOf(SchemaNotInstalledException.class)
        .hasMessageContaining("found no fencing tables of this version")
        .hasMessageContaining("schema " + schema.name() + "_missing")
        .hasRootCauseInstanceOf(java.sql.SQLException.class);
    // the schema's version read (no fencing tables: nothing to refuse), then the call, once
    assertThat(counting.connections()).isEqualTo(2);
  }

  @Test
  void aTerminatedConnectionIsRetriedAndTheDeliveryLandsOnce() {
    FlakyDataSource flaky = new FlakyDataSource(schema.dataSource(), 2);
    FencedReceiver retrying = builder(flaky).install(false).build().receiver("default");

    assertThat(retrying.deliver("k", Epoch.of(7), payload(7)))
        .isEqualTo(new FencedOutcome.Accepted("k", Epoch.of(7), false));
    assertThat(flaky.connections()).isEqualTo(3);
    assertThat(receiver.newest("k")).contains(new Receipt("k", Epoch.of(7), payload(7)));
  }

  @Test
  void aDatabaseThatStaysDownGivesUpAfterAFewAttempts() {
    FlakyDataSource down = new FlakyDataSource(schema.dataSource(), Integer.MAX_VALUE);
    FencedReceiver failing =
        builder(down).install(false).retryWait(Duration.ofMillis(10)).build().receiver("default");

    assertThatThrownBy(() -> failing.deliver("k", Epoch.of(7), payload(7)))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("a statement failed (transient failures retried 3 times)");
    // one try at reading the schema's version first (which, unanswered, lets the call report),
    // then the call and its 3 retries
    assertThat(down.connections()).isEqualTo(5);
    assertThat(receiver.newest("k")).isEmpty();
  }

  /**
   * {@code jsonb} refuses an escaped NUL and lone surrogate escapes, which are JSON text, and the
   * server refuses a NUL character in any text: each is a bad payload, refused at once.
   */
  @ParameterizedTest(name = "payload={0}")
  @ValueSource(strings = {"\"\\u0000\"", "\"\\ud800\"", "[\"\\udc00\\ud800\"]", "\"a\0b\""})
  void jsonThatJsonbRefusesIsRefusedAtOnceAndTheReceiptIsUnchanged(String payload) {
    FlakyDataSource counting = new FlakyDataSource(schema.dataSource(), 0);
    FencedReceiver receiver = fencing(counting).receiver("default");
    receiver.deliver("k", Epoch.of(1), payload(1));
    int before = counting.connections();

    assertThatThrownBy(() -> receiver.deliver("k", Epoch.of(2), payload))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("payload must be JSON that PostgreSQL can store as jsonb (")
        .hasMessageEndingWith("), but was '" + payload.replace("\0", "\\0") + "'")
        .hasMessageNotContaining("\n")
        .hasMessageNotContaining("\0");
    assertThat(counting.connections() - before).as("not retried").isEqualTo(1);
    assertThat(receiver.newest("k")).contains(new Receipt("k", Epoch.of(1), payload(1)));
  }

  @Test
  void theServersReasonIsInTheMessage() {
    assertThatThrownBy(() -> receiver.deliver("k", Epoch.of(1), "{'a': 1}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid input syntax for type json")
        .hasMessageContaining("Token \"'\" is invalid.")
        .hasMessageEndingWith("but was '{'a': 1}'");
  }

  @Test
  void jsonNestedTooDeeplyForTheServerIsABadPayloadNotAStoreFailure() {
    String deep = "[".repeat(100_000) + "]".repeat(100_000);
    receiver.deliver("k", Epoch.of(1), payload(1));

    assertThatThrownBy(() -> receiver.deliver("k", Epoch.of(2), deep))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("payload must be JSON that PostgreSQL can store as jsonb (")
        .hasMessageContaining("stack depth limit exceeded")
        .hasMessageEndingWith("but was '" + "[".repeat(120) + "...'");
    assertThat(receiver.newest("k")).contains(new Receipt("k", Epoch.of(1), payload(1)));
  }

  @Test
  void aKeyWithANulCharacterIsRefused() {
    assertThatThrownBy(() -> receiver.deliver("a\0b", Epoch.of(1), payload(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("key must be non-blank well-formed text");
  }

  @Test
  void payloadsComeBackInJsonbForm() {
    receiver.deliver("k", Epoch.of(1), "{\"b\":1,   \"a\":[true,null]}");

    assertThat(receiver.newest("k").orElseThrow().payload())
        .isEqualTo("{\"a\": [true, null], \"b\": 1}");
  }

  @Test
  void aFailureWithoutAnSqlStateIsAStoreFailureAndIsNotRetried() throws Exception {
    DataSource pool = schema.pooledDataSource(1);
    FencedReceiver closing = builder(pool).install(false).build().receiver("default");
    ((AutoCloseable) pool).close();

    assertThatThrownBy(() -> closing.deliver("k", Epoch.of(1), payload(1)))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageStartingWith("PostgreSQL (schema " + schema.name() + "): a statement failed: ")
        .hasMessageContaining("closed")
        .hasMessageNotContaining("retried");
    assertThatThrownBy(() -> closing.newest("k"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("a statement failed: ");
  }

  @Test
  void aConnectionWithAutoCommitOffIsCommittedAndHandedBackInThatMode() throws Exception {
    try (OneConnection one = new OneConnection(schema.dataSource(), false)) {
      FencedReceiver manual = fencing(one.dataSource()).receiver("default");

      assertThat(manual.deliver("k", Epoch.of(3), payload(3)))
          .isEqualTo(new FencedOutcome.Accepted("k", Epoch.of(3), false));

      assertThat(one.connection().getAutoCommit()).isFalse();
      assertThat(receiver.newest("k"))
          .as("committed: seen from another connection")
          .contains(new Receipt("k", Epoch.of(3), payload(3)));
      assertThat(manual.newest("k")).contains(new Receipt("k", Epoch.of(3), payload(3)));
    }
  }

  @Test
  void installingOnAConnectionWithAutoCommitOnHandsItBackInThatMode() throws Exception {
    try (OneConnection one = new OneConnection(schema.dataSource(), true)) {
      FencedReceiver installed = fencing(one.dataSource()).receiver("fresh");

      assertThat(one.connection().getAutoCommit()).isTrue();
      assertThat(installed.deliver("k", Epoch.of(1), payload(1)).isAccepted()).isTrue();
      assertThat(one.connection().getAutoCommit()).isTrue();
    }
  }

  @Test
  void aRefusedPayloadIsRolledBackSoTheConnectionWorksAgain() throws Exception {
    try (OneConnection one = new OneConnection(schema.dataSource(), false)) {
      FencedReceiver manual = builder(one.dataSource()).install(false).build().receiver("default");

      assertThatThrownBy(() -> manual.deliver("k", Epoch.of(1), "{'a': 1}"))
          .isInstanceOf(IllegalArgumentException.class);

      assertThat(manual.deliver("k", Epoch.of(1), payload(1)))
          .isEqualTo(new FencedOutcome.Accepted("k", Epoch.of(1), false));
      assertThat(receiver.newest("k")).contains(new Receipt("k", Epoch.of(1), payload(1)));
    }
  }

  @Test
  void aReceiverDescribesItselfByNameAndSchema() {
    assertThat(fencing(schema.sharedPool()).receiver("ledger"))
        .hasToString("PostgreSQL receiver 'ledger' in schema " + schema.name());
  }
}
