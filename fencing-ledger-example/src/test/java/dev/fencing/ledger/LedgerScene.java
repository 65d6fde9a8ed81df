package dev.fencing.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.process.JavaProcess;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seed 002's scene with real processes: three producers (two of them sharing a name) own accounts
 * through one coordination backend and debit them at the ledger. One producer is frozen with {@code
 * SIGSTOP} just after it announced a debit, its ownership runs out, another producer takes the
 * account over and applies that very request, and the frozen one is thawed and sends it anyway.
 */
final class LedgerScene {

  static final List<String> ACCOUNTS = List.of("acct-a", "acct-b", "acct-c");
  static final long OPENING = 1_000_000;
  static final int REQUESTS_PER_ACCOUNT = 20;

  /** What happened, read from the ledger and the producers' lines. */
  record Result(
      String backend,
      Map<String, Long> expected,
      Map<String, Long> balances,
      int requests,
      int entries,
      int requestsAppliedTwice,
      int zombieRefused,
      long zombieEpoch,
      long takeoverEpoch) {

    boolean exact() {
      return expected.equals(balances) && requestsAppliedTwice == 0 && entries == requests;
    }

    String row() {
      return String.format(
          "| %s | %d | %d | %d | %d → %d | %d | %s |",
          backend,
          requests,
          entries,
          requestsAppliedTwice,
          zombieEpoch,
          takeoverEpoch,
          zombieRefused,
          exact() ? "exact" : "WRONG " + balances + " expected " + expected);
    }
  }

  private LedgerScene() {}

  static Result play(
      String backend, String coordination, TestSchema schema, Duration lease, boolean checked)
      throws SQLException {
    Ledger ledger = Ledger.of(schema.dataSource(), schema.name());
    ledger.install();
    Map<String, Long> expected = new LinkedHashMap<>();
    Random random = new Random(2);
    for (String account : ACCOUNTS) {
      ledger.open(account, OPENING);
      long balance = OPENING;
      for (int i = 0; i < REQUESTS_PER_ACCOUNT; i++) {
        long amount = 1 + random.nextInt(500);
        ledger.request(account, amount);
        balance -= amount;
      }
      expected.put(account, balance);
    }

    List<JavaProcess> producers = new ArrayList<>();
    try {
      for (String name : List.of("twin", "twin", "solo")) {
        producers.add(
            JavaProcess.start(
                name + "-" + producers.size(),
                Producer.class,
                List.of(
                    name,
                    coordination,
                    schema.database().jdbcUrl(),
                    schema.database().user(),
                    schema.database().password(),
                    schema.name(),
                    String.join(",", ACCOUNTS),
                    Long.toString(lease.toMillis()),
                    "100",
                    checked ? "checked" : "unchecked")));
      }
      Duration patience = lease.plusSeconds(60);
      JavaProcess zombie = firstToSend(producers, patience);
      zombie.freeze();
      int sending = zombie.await(0, line -> line.contains(" SENDING "), patience);
      String[] announced = zombie.lines().get(sending).split(" ");
      String account = announced[2];
      long zombieEpoch = Long.parseLong(announced[3]);
      String request = announced[5];

      long takeoverEpoch = -1;
      for (JavaProcess healthy : producers) {
        if (healthy == zombie) {
          continue;
        }
        try {
          int applied =
              healthy.await(
                  0,
                  line ->
                      line.contains(" APPLIED " + account + " ") && line.endsWith(" " + request),
                  patience);
          takeoverEpoch = Long.parseLong(healthy.lines().get(applied).split(" ")[3]);
          break;
        } catch (IllegalStateException notThisOne) {
          // the other producer took it over
        }
      }
      assertThat(takeoverEpoch).as("a healthy producer applied request %s", request).isPositive();
      zombie.thaw();
      zombie.await(
          sending + 1,
          line ->
              (line.contains(" APPLIED ") || line.contains(" FENCED "))
                  && line.contains(" " + account + " " + zombieEpoch + " "),
          patience);
      for (JavaProcess producer : producers) {
        assertThat(producer.awaitExit(Duration.ofSeconds(120)))
            .as("%s exit; stderr %s", producer.name(), producer.stderr())
            .isZero();
      }
      int zombieRefused =
          (int)
              zombie.lines().stream()
                  .filter(l -> l.contains(" FENCED " + account + " " + zombieEpoch + " "))
                  .count();
      return new Result(
          backend,
          expected,
          ledger.balances(),
          ACCOUNTS.size() * REQUESTS_PER_ACCOUNT,
          count(schema, "select count(*) from %s.entries"),
          count(
              schema,
              "select count(*) from (select request_id from %s.entries group by request_id"
                  + " having count(*) > 1) twice"),
          zombieRefused,
          zombieEpoch,
          takeoverEpoch);
    } finally {
      producers.forEach(JavaProcess::close);
    }
  }

  /** Returns the first producer to announce a debit, as soon as it does. */
  private static JavaProcess firstToSend(List<JavaProcess> producers, Duration patience) {
    long deadline = System.nanoTime() + patience.toNanos();
    while (System.nanoTime() < deadline) {
      for (JavaProcess producer : producers) {
        if (producer.lines().stream().anyMatch(line -> line.contains(" SENDING "))) {
          return producer;
        }
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new IllegalStateException("no producer sent a debit within " + patience);
  }

  private static int count(TestSchema schema, String sql) throws SQLException {
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(String.format(sql, schema.name()))) {
      r.next();
      return r.getInt(1);
    }
  }
}
