package dev.fencing.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.FencedReceiver.Receipt;
import dev.fencing.testkit.FencingDatabase;
import dev.fencing.testkit.TestSchema;
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
    this.receiver = builder().build();
  }

  @Override
  protected FencedReceiver receiver() {
    return receiver;
  }

  private PostgresReceiverBuilder builder() {
    return Receivers.postgres(schema.dataSource()).schema(schema.name());
  }

  @Test
  void receiversWithDifferentNamesShareTheTableButNotTheKeys() {
    FencedReceiver emails = builder().name("emails").build();
    FencedReceiver ledger = builder().name("ledger").build();
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

    FencedReceiver again = builder().build();

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
                return Receivers.postgres(schema.dataSource()).schema(fresh).build();
              });

      receivers.getFirst().deliver("k", Epoch.of(1), payload(1));
      assertThat(receivers.getLast().newest("k")).isPresent();
    } finally {
      schema.database().dropSchema(fresh);
    }
  }

  @Test
  void aSchemaNameWithSqlInItIsRefused() {
    assertThatThrownBy(() -> Receivers.postgres(schema.dataSource()).schema("x; drop table"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("schema must be a plain identifier")
        .hasMessageEndingWith("but was 'x; drop table'");
  }

  @Test
  void aReceiverNameThatIsNotAnIdentifierIsRefused() {
    assertThatThrownBy(() -> Receivers.postgres(schema.dataSource()).name("Ledger A"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("name must be a plain identifier");
  }

  @Test
  void withoutInstallAMissingTableFailsAtOnceWithoutRetrying() {
    FlakyDataSource counting = new FlakyDataSource(schema.dataSource(), 0);
    FencedReceiver uninstalled =
        Receivers.postgres(counting).schema(schema.name() + "_missing").install(false).build();

    assertThatThrownBy(() -> uninstalled.deliver("k", Epoch.of(1), payload(1)))
        .isInstanceOf(ReceiverException.class)
        .hasMessageContaining("could not deliver key 'k' at epoch 1: SQLState 42P01")
        .hasMessageNotContaining("gave up");
    assertThat(counting.connections()).isEqualTo(1);
  }

  @Test
  void aTerminatedConnectionIsRetriedAndTheDeliveryLandsOnce() {
    FlakyDataSource flaky = new FlakyDataSource(schema.dataSource(), 2);
    FencedReceiver retrying =
        Receivers.postgres(flaky).schema(schema.name()).install(false).build();

    assertThat(retrying.deliver("k", Epoch.of(7), payload(7)))
        .isEqualTo(new FencedOutcome.Accepted("k", Epoch.of(7), false));
    assertThat(flaky.connections()).isEqualTo(3);
    assertThat(receiver.newest("k")).contains(new Receipt("k", Epoch.of(7), payload(7)));
  }

  @Test
  void aDatabaseThatStaysDownGivesUpAfterAFewAttempts() {
    FlakyDataSource down = new FlakyDataSource(schema.dataSource(), Integer.MAX_VALUE);
    FencedReceiver failing = Receivers.postgres(down).schema(schema.name()).install(false).build();

    assertThatThrownBy(() -> failing.deliver("k", Epoch.of(7), payload(7)))
        .isInstanceOf(ReceiverException.class)
        .hasMessageContaining("gave up after 4 attempts");
    assertThat(down.connections()).isEqualTo(4);
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
    FencedReceiver receiver = Receivers.postgres(counting).schema(schema.name()).build();
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
    FencedReceiver closing = Receivers.postgres(pool).schema(schema.name()).install(false).build();
    ((AutoCloseable) pool).close();

    assertThatThrownBy(() -> closing.deliver("k", Epoch.of(1), payload(1)))
        .isInstanceOf(ReceiverException.class)
        .hasMessageStartingWith(
            "receiver 'default' in schema "
                + schema.name()
                + ": could not deliver key 'k' at epoch 1: SQLState null: ")
        .hasMessageContaining("closed")
        .hasMessageNotContaining("gave up");
    assertThatThrownBy(() -> closing.newest("k"))
        .isInstanceOf(ReceiverException.class)
        .hasMessageContaining(": could not read key 'k': SQLState null");
  }

  @Test
  void aConnectionWithAutoCommitOffIsCommittedAndHandedBackInThatMode() throws Exception {
    try (OneConnection one = new OneConnection(schema.dataSource(), false)) {
      FencedReceiver manual = Receivers.postgres(one.dataSource()).schema(schema.name()).build();

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
      FencedReceiver installed =
          Receivers.postgres(one.dataSource()).schema(schema.name()).name("fresh").build();

      assertThat(one.connection().getAutoCommit()).isTrue();
      assertThat(installed.deliver("k", Epoch.of(1), payload(1)).isAccepted()).isTrue();
      assertThat(one.connection().getAutoCommit()).isTrue();
    }
  }

  @Test
  void aRefusedPayloadIsRolledBackSoTheConnectionWorksAgain() throws Exception {
    try (OneConnection one = new OneConnection(schema.dataSource(), false)) {
      FencedReceiver manual =
          Receivers.postgres(one.dataSource()).schema(schema.name()).install(false).build();

      assertThatThrownBy(() -> manual.deliver("k", Epoch.of(1), "{'a': 1}"))
          .isInstanceOf(IllegalArgumentException.class);

      assertThat(manual.deliver("k", Epoch.of(1), payload(1)))
          .isEqualTo(new FencedOutcome.Accepted("k", Epoch.of(1), false));
      assertThat(receiver.newest("k")).contains(new Receipt("k", Epoch.of(1), payload(1)));
    }
  }

  @Test
  void aReceiverDescribesItselfByNameAndSchema() {
    assertThat(builder().name("ledger").build())
        .hasToString("receiver 'ledger' in schema " + schema.name());
  }
}
