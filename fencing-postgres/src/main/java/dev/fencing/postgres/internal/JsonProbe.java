package dev.fencing.postgres.internal;

import dev.fencing.StoreUnavailableException;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Finds which values of a batch {@code jsonb} refuses, after the batch's statement failed with a
 * data exception: the store is the judge, asked about halves of the batch until each refusal is
 * pinned to one value. A batch with one bad value among n costs about 2 log2(n) round trips.
 */
public final class JsonProbe {

  private static final String SQL =
      "select count(cast(x as jsonb)) from unnest(cast(? as text[])) as t(x)";

  private final Jdbc jdbc;

  @Inject
  JsonProbe(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * Returns what a failed write of {@code payloads} should raise: if {@code failure} is a data
   * exception and {@code jsonb} refuses one of them, an {@link IllegalArgumentException} naming the
   * first such payload by {@code parameter} of its index, with the store's reason; else {@code
   * failure}.
   */
  public RuntimeException explain(
      RuntimeException failure,
      List<String> payloads,
      java.util.function.IntFunction<String> parameter) {
    if (Text.dataException(failure) == null) {
      return failure;
    }
    for (Map.Entry<Integer, SQLException> bad : refused(payloads, true).entrySet()) {
      int i = bad.getKey();
      return Text.invalidJson(parameter.apply(i), payloads.get(i), bad.getValue());
    }
    return failure;
  }

  /**
   * Returns the positions in {@code values} that {@code jsonb} refuses, each with the store's
   * reason, in order; only the first one if {@code firstOnly}.
   */
  public Map<Integer, SQLException> refused(List<String> values, boolean firstOnly) {
    Map<Integer, SQLException> out = new TreeMap<>();
    search(values, 0, values.size(), firstOnly, out);
    return out;
  }

  private void search(
      List<String> values, int from, int to, boolean firstOnly, Map<Integer, SQLException> out) {
    if (from >= to || (firstOnly && !out.isEmpty())) {
      return;
    }
    SQLException refusal = probe(values.subList(from, to));
    if (refusal == null) {
      return;
    }
    if (to - from == 1) {
      out.put(from, refusal);
      return;
    }
    int middle = (from + to) >>> 1;
    search(values, from, middle, firstOnly, out);
    search(values, middle, to, firstOnly, out);
  }

  /**
   * Returns the store's refusal of one of {@code values} as jsonb, or null if it takes them all.
   */
  private @org.jspecify.annotations.Nullable SQLException probe(List<String> values) {
    try {
      jdbc.runRetried(
          c -> {
            try (PreparedStatement s = c.prepareStatement(SQL)) {
              s.setArray(1, c.createArrayOf("text", values.toArray(String[]::new)));
              try (ResultSet r = s.executeQuery()) {
                return r.next();
              }
            }
          });
      return null;
    } catch (StoreUnavailableException e) {
      SQLException refusal = Text.dataException(e);
      if (refusal == null) {
        throw e;
      }
      return refusal;
    }
  }
}
