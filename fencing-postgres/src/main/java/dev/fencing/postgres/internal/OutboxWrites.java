package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_OUTBOX;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.select;

import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.postgres.internal.jooq.tables.FencingOutbox;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Writes a commit's outbox messages, on the connection of the commit's transaction and only after
 * its compare-and-set matched: a refused commit, or a retried one that finds its first try landed,
 * writes none.
 */
public final class OutboxWrites {

  private final RenderedSql insertSql;

  @Inject
  OutboxWrites(Jdbc jdbc) {
    this.insertSql = RenderedSql.of(jdbc.dsl(), RenderedSql.Plan.CACHED, OutboxWrites::insertQuery);
  }

  /** One message to write: the lease whose commit writes it, and its position in the commit. */
  public record Row(Lease lease, int index, OutboxMessage message) {}

  /** The rows of {@code messages} committed under {@code lease}. */
  public static List<Row> rows(Lease lease, List<OutboxMessage> messages) {
    List<Row> rows = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      rows.add(new Row(lease, i, messages.get(i)));
    }
    return rows;
  }

  /**
   * Checks that the driver can send every payload, naming the first that it cannot as {@code
   * parameter[i].payload}.
   */
  public static void requireSendable(String parameter, List<OutboxMessage> messages) {
    for (int i = 0; i < messages.size(); i++) {
      Text.requireSendable(parameter + "[" + i + "].payload", messages.get(i).payload());
    }
  }

  /**
   * Inserts {@code rows} in one statement on {@code connection}, inside the caller's transaction.
   */
  public void insert(Connection connection, List<Row> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    int n = rows.size();
    Long[] jobs = new Long[n];
    Long[] indexes = new Long[n];
    Long[] epochs = new Long[n];
    String[] destinations = new String[n];
    String[] keys = new String[n];
    String[] payloads = new String[n];
    for (int k = 0; k < n; k++) {
      Row row = rows.get(k);
      jobs[k] = row.lease().jobId();
      indexes[k] = (long) row.index();
      epochs[k] = row.lease().epoch().value();
      destinations[k] = row.message().destination();
      keys[k] = row.message().key();
      payloads[k] = row.message().payload();
    }
    Map<String, Object> values =
        Map.of(
            "jobs", jobs,
            "indexes", indexes,
            "epochs", epochs,
            "destinations", destinations,
            "keys", keys,
            "payloads", payloads);
    try (PreparedStatement s = insertSql.prepare(connection, values)) {
      s.executeUpdate();
    }
  }

  private static Query insertQuery(DSLContext dsl, RenderedSql.Parameters parameters) {
    FencingOutbox o = FENCING_OUTBOX;
    Table<?> m =
        DSL.table(
                "unnest({0}, {1}, {2}, {3}, {4}, {5})",
                parameters.bigints("jobs"),
                parameters.bigints("indexes"),
                parameters.bigints("epochs"),
                parameters.varchars("destinations"),
                parameters.varchars("keys"),
                parameters.texts("payloads"))
            .as("m", "m_job", "m_index", "m_epoch", "m_destination", "m_key", "m_payload");
    // Unqualified, uniquely named columns: the render mapping would qualify "m" with the schema.
    return dsl.insertInto(o, o.JOB_ID, o.IDX, o.EPOCH, o.DESTINATION, o.RECEIVER_KEY, o.PAYLOAD)
        .select(
            select(
                    field(name("m_job"), Long.class),
                    field("cast({0} as integer)", Integer.class, field(name("m_index"))),
                    field(name("m_epoch"), Long.class),
                    field(name("m_destination"), String.class),
                    field(name("m_key"), String.class),
                    field("cast({0} as jsonb)", SQLDataType.JSONB, field(name("m_payload"))))
                .from(m));
  }
}
