package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_OUTBOX;

import dev.fencing.SchemaNotInstalledException;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.admin.OutboxEntry;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * What both engines' {@link Admin} share: refusals, the reason's check, messages, the install
 * check.
 */
public final class AdminSupport {

  /** The longest reason kept, the width of {@code last_error}. */
  static final int MAX_REASON_LENGTH = 4000;

  private AdminSupport() {}

  /** The refusal of a change, shared by both engines. */
  public static final String REQUEUE_REFUSAL =
      "only a failed job can be requeued; enqueue a new job to run a completed one again";

  /** The refusal of a fail, shared by both engines. */
  public static final String FAIL_REFUSAL = "only a pending or running job can be failed";

  /** Checks the reason of a fail, and returns it as kept. */
  public static String reason(String reason) {
    Objects.requireNonNull(reason, "reason");
    if (reason.isBlank()) {
      throw new IllegalArgumentException("reason must not be blank, but was '" + reason + "'");
    }
    return Text.storable(reason, MAX_REASON_LENGTH);
  }

  /** The outbox messages of a job, by index. */
  public static List<OutboxEntry> messages(DSLContext dsl, long jobId) {
    return dsl.selectFrom(FENCING_OUTBOX)
        .where(FENCING_OUTBOX.JOB_ID.eq(jobId))
        .orderBy(FENCING_OUTBOX.IDX)
        .fetch(
            m ->
                new OutboxEntry(
                    m.getIdx(),
                    m.getEpoch(),
                    m.getDestination(),
                    m.getReceiverKey(),
                    m.getCreatedAt().toInstant(),
                    instant(m.getDeliveredAt()),
                    m.getOutcome(),
                    m.getWonEpoch()));
  }

  /** Says how to install the tables of {@code schema}. */
  static String install(String schema) {
    return "install them with PostgresFencing.builder(dataSource).schema(\""
        + schema
        + "\").build(), or run the scripts of PostgresFencing.migrations() with search_path set to "
        + schema;
  }

  public static @Nullable Instant instant(@Nullable OffsetDateTime t) {
    return t == null ? null : t.toInstant();
  }

  /**
   * Checks that {@code names} (one column of names, the schema bound as its one parameter) finds
   * anything, and {@code required} among it.
   *
   * @param older what an older schema lacks, as the message says it
   * @throws SchemaNotInstalledException if not, saying how to install
   * @throws StoreUnavailableException if the database could not be reached or refused
   */
  public static void checkInstalled(
      Jdbc jdbc, String schema, String names, String required, String older) {
    List<String> found;
    try {
      found = jdbc.run(c -> jdbc.on(c).resultQuery(names, schema).fetch(0, String.class));
    } catch (StoreUnavailableException e) {
      throw StoreFailures.of(jdbc.config()).during("could not read which tables it holds", e);
    }
    if (found.isEmpty()) {
      throw new SchemaNotInstalledException(
          schema, "schema " + schema + " has no fencing tables; " + install(schema));
    }
    if (!found.contains(required)) {
      throw new SchemaNotInstalledException(
          schema,
          "schema "
              + schema
              + " has fencing tables of an older version ("
              + older
              + "); upgrade: "
              + install(schema));
    }
  }
}
