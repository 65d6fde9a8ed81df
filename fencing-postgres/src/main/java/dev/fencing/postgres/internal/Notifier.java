package dev.fencing.postgres.internal;

import dev.fencing.FencingException;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.regex.Pattern;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the wake-up signals: {@code pg_notify(channel, queue)}, channel and queue bound as
 * parameters. PostgreSQL delivers a notification only when its transaction commits, so a listener
 * never hears of a job it cannot yet see.
 */
public final class Notifier {

  private static final Pattern PLAIN = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  private static final Logger LOG = LoggerFactory.getLogger(Notifier.class);

  private final Jdbc jdbc;
  private final Config config;
  private final String channel;

  @Inject
  Notifier(Jdbc jdbc) {
    this.jdbc = jdbc;
    this.config = jdbc.config();
    this.channel = channel(config.schema());
  }

  /**
   * The channel of {@code schema}: each schema its own, so that queues of the same name in two
   * schemas do not wake each other. A channel is an identifier of at most 63 bytes: a long schema
   * name is cut and a hash of the whole name keeps it apart from its neighbours.
   */
  static String channel(String schema) {
    String channel = "fencing_" + schema;
    if (channel.length() > 63) {
      channel = channel.substring(0, 54) + "_" + Integer.toHexString(schema.hashCode());
    }
    if (!PLAIN.matcher(channel).matches()) {
      throw new IllegalArgumentException("schema must be a plain identifier, but was " + schema);
    }
    return channel;
  }

  String channel() {
    return channel;
  }

  boolean enabled() {
    return config.notifications();
  }

  /** Notifies {@code queue} in the transaction running on {@code c}: sent when it commits. */
  public void inTransaction(Connection c, String queue) throws SQLException {
    if (!config.notifications()) {
      return;
    }
    try (PreparedStatement notify = c.prepareStatement("select pg_notify(?, ?)")) {
      notify.setString(1, channel);
      notify.setString(2, queue);
      notify.execute();
    }
  }

  /**
   * Notifies {@code queue} in a statement of its own, after the commit of what it announces. Best
   * effort: if it fails, waiters find the jobs at their next poll.
   */
  void afterCommit(String queue) {
    if (!config.notifications()) {
      return;
    }
    try {
      jdbc.run(
          c -> {
            inTransaction(c, queue);
            return null;
          });
    } catch (FencingException e) {
      LOG.debug("could not notify queue {}", queue, e);
    }
  }

  /**
   * Notifies, in a statement of its own after the commit of what it announces, the queue that
   * {@code queue} reads from each row of {@code from} that {@code which} selects (none when it
   * selects none): a job given back by release or by a failure without delay. Best effort: if it
   * fails, waiters find the job at their next poll.
   *
   * @param what names what is announced in the log when it fails
   */
  public void afterCommit(String what, Table<?> from, Field<String> queue, Condition which) {
    if (!config.notifications()) {
      return;
    }
    try {
      jdbc.run(
          c ->
              jdbc.on(c)
                  .select(
                      DSL.field("pg_notify({0}, {1})", SQLDataType.OTHER, DSL.val(channel), queue))
                  .from(from)
                  .where(which)
                  .fetch());
    } catch (FencingException e) {
      LOG.debug("could not notify {}", what, e);
    }
  }
}
