package dev.fencing.testkit.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The queue in memory takes and prints JSON exactly as PostgreSQL 17's {@code jsonb} does: each
 * text is given to both, and both must refuse it, or both take it and print the same text; two
 * values are equal in memory exactly when {@code jsonb}'s {@code =} says so.
 */
@FencingDatabase
class JsonbAgreesWithPostgresTest {

  private static final List<String> CASES =
      List.of(
          "{}",
          "[]",
          " {\"n\":1} ",
          "{\"b\":1,\"a\":2,\"aa\":3,\"a\":4}",
          "{\"é\":1,\"z\":2,\"\u00ff\":3,\"\uD83D\uDE00\":4,\"zzz\":5}",
          "[1,[2,[3,{\"x\":[]}]],{}]",
          "\t\n\r[ true , false , null ]",
          "\"plain\"",
          "\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0001 \\u001f \\u007f \\u00e9 \\uD83D\\uDE00\"",
          "\"\\u00E9\\u00e9\"",
          "0",
          "-0",
          "-0.0",
          "0.000",
          "1.50",
          "1e2",
          "1E+2",
          "1.5e1",
          "1.55e1",
          "100e-1",
          "1.0e-5",
          "-12.3400e-2",
          "0e5",
          "0e-5",
          "123456789012345678901234567890.123456789",
          "1e1000",
          "1e-1000",
          "1e16383",
          "1e-16383",
          "1e-16384",
          "1.0e-16383",
          "0e-16384",
          "1e131071",
          "1e131072",
          "1e-2147483647",
          "1e2147483647",
          "1e99999999999",
          "0e1073741823",
          "0e1073741824",
          "0e-1073741824",
          "1.000e131068",
          "1.000e131069",
          // refused
          "",
          "   ",
          "{",
          "}",
          "[1,]",
          "[,1]",
          "{\"a\"}",
          "{\"a\":}",
          "{\"a\":1,}",
          "{a:1}",
          "{1:1}",
          "[1 2]",
          "1 2",
          "{} {}",
          "01",
          "-01",
          "1.",
          ".5",
          "+1",
          "1e",
          "1e+",
          "-",
          "1x",
          "1_",
          "1é",
          "NaN",
          "Infinity",
          "True",
          "nul",
          "truex",
          "true1",
          "'a'",
          "\"unclosed",
          "\"a\tb\"",
          "\"a\nb\"",
          "\"\\x\"",
          "\"\\u12\"",
          "\"\\u12g4\"",
          "\"\\u0000\"",
          "\"\\uD800\"",
          "\"\\uDC00\"",
          "\"\\uD800\\u0041\"",
          "\"\\uD800x\"",
          "\"\\uDC00\\uD800\"",
          "[\"\\ud83d\\ude00\"]",
          "\u00a0[]",
          "\f[]",
          "[1]\u00a0",
          "/* c */ 1",
          "{\"a\":1}\n[2]");

  @Test
  void eachTextIsTakenAndPrintedAsJsonbDoes(PostgresFixture.Database db) throws SQLException {
    Map<String, @Nullable String> server = jsonb(db, CASES);
    for (String text : CASES) {
      assertThat(mine(text)).as("%s", text).isEqualTo(server.get(text));
    }
  }

  /** Random texts from an alphabet of JSON's pieces: most are refused, some taken. */
  @Test
  void randomTextsAreTakenAndPrintedAsJsonbDoes(PostgresFixture.Database db) throws SQLException {
    String[] pieces = {
      "{",
      "}",
      "[",
      "]",
      ",",
      ":",
      " ",
      "\"a\"",
      "\"\\u00e9\"",
      "\"\\n\"",
      "1",
      "0",
      "-",
      ".",
      "e",
      "2",
      "true",
      "null",
      "\"",
      "\\",
      "x",
      "é",
      "\t"
    };
    Random random = new Random(35);
    List<String> texts = new ArrayList<>();
    for (int n = 0; n < 5_000; n++) {
      StringBuilder text = new StringBuilder();
      int length = 1 + random.nextInt(9);
      for (int k = 0; k < length; k++) {
        text.append(pieces[random.nextInt(pieces.length)]);
      }
      texts.add(text.toString());
    }
    Map<String, @Nullable String> server = jsonb(db, texts);
    long taken = server.values().stream().filter(v -> v != null).count();
    assertThat(taken).as("texts jsonb took").isGreaterThan(30);
    for (String text : texts) {
      assertThat(mine(text)).as("%s", text).isEqualTo(server.get(text));
    }
  }

  @Test
  void equalValuesAreEqualAsJsonbComparesThem(PostgresFixture.Database db) throws SQLException {
    List<List<String>> pairs =
        List.of(
            List.of("1", "1.0"),
            List.of("1", "1e0"),
            List.of("100", "1e2"),
            List.of("0", "-0.00"),
            List.of("1", "2"),
            List.of("1", "\"1\""),
            List.of("[1]", "1"),
            List.of("[1,2]", "[2,1]"),
            List.of("{\"a\":1,\"b\":2}", "{\"b\":2.00,\"a\":1}"),
            List.of("{\"a\":1,\"a\":2}", "{\"a\":2}"),
            List.of("{\"a\":1}", "{\"a\":1,\"b\":null}"),
            List.of("\"\\u00e9\"", "\"é\""),
            List.of("\"a\"", "\"A\""),
            List.of("null", "false"));
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement s = c.prepareStatement("select cast(? as jsonb) = cast(? as jsonb)")) {
      for (List<String> pair : pairs) {
        s.setString(1, pair.get(0));
        s.setString(2, pair.get(1));
        try (ResultSet r = s.executeQuery()) {
          r.next();
          boolean equal =
              Jsonb.parse("a", pair.get(0))
                  .identity()
                  .equals(Jsonb.parse("b", pair.get(1)).identity());
          assertThat(equal).as("%s = %s", pair.get(0), pair.get(1)).isEqualTo(r.getBoolean(1));
        }
      }
    }
  }

  @Test
  void deepNestingIsTakenWithoutRecursion() {
    String deep = "[".repeat(200_000) + "]".repeat(200_000);
    assertThat(Jsonb.parse("payload", deep).text()).isEqualTo(deep);
  }

  @Test
  void textThatCannotBeSentIsRefusedByName() {
    for (String text : List.of("\"a\u0000\"", "\u0000", "\"\uD800\"", "\"\uDC00a\"")) {
      assertThatThrownBy(() -> Jsonb.parse("result", text))
          .as("%s", text)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("result must be JSON that PostgreSQL jsonb accepts, but was '");
    }
    assertThatThrownBy(() -> Jsonb.parse("payload", null))
        .hasMessage("payload must be JSON, but was null");
  }

  @Test
  void theReasonAndThePlaceAreInTheMessage() {
    assertThatThrownBy(() -> Jsonb.parse("payloads[1]", "[1,"))
        .hasMessage(
            "payloads[1] must be JSON that PostgreSQL jsonb accepts, but was '[1,' (the text ends"
                + " where a value was expected)");
    assertThatThrownBy(() -> Jsonb.parse("payload", "{\"a\": 1}\n[2]"))
        .hasMessageEndingWith("(unexpected '[' at index 9 after the value)");
  }

  /** What {@code Jsonb} prints for {@code text}, or null if it refuses it. */
  private static @Nullable String mine(String text) {
    try {
      return Jsonb.parse("payload", text).text();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** What {@code jsonb} prints for each text, or null where it refuses it; one statement. */
  private static Map<String, @Nullable String> jsonb(
      PostgresFixture.Database db, List<String> texts) throws SQLException {
    Map<String, @Nullable String> out = new LinkedHashMap<>();
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select t, case when pg_input_is_valid(t, 'jsonb') then t::jsonb::text end"
                    + " from unnest(?::text[]) as t")) {
      Array array = c.createArrayOf("text", texts.toArray(String[]::new));
      s.setArray(1, array);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          out.put(r.getString(1), r.getString(2));
        }
      }
    }
    return out;
  }
}
