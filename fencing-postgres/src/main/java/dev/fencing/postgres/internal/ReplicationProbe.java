package dev.fencing.postgres.internal;

import dev.fencing.postgres.Replication;
import jakarta.inject.Inject;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Asks the server whether a synchronous standby is attached. Never waits for a standby itself, so
 * it answers also when none is attached in synchronous mode.
 */
public final class ReplicationProbe {

  /** Insufficient privilege. */
  private static final String NOT_ALLOWED = "42501";

  // a role without pg_read_all_stats sees the rows of pg_stat_replication with null columns
  private static final String SQL =
      "select current_setting('synchronous_standby_names'), pg_is_in_recovery(),"
          + " (select count(*) from pg_stat_replication"
          + "   where sync_state in ('sync', 'quorum') and state = 'streaming'),"
          + " (select count(*) from pg_stat_replication where sync_state is null)";

  private final Jdbc jdbc;

  @Inject
  ReplicationProbe(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /** Returns what the server says now. */
  public Replication probe() {
    return jdbc.inspectRetried(
        c -> {
          try (Statement s = c.createStatement();
              ResultSet r = s.executeQuery(SQL)) {
            r.next();
            String names = r.getString(1);
            Replication.Standby standby;
            if (r.getBoolean(2)) {
              standby = Replication.Standby.UNKNOWN;
            } else if (r.getLong(3) > 0) {
              standby = Replication.Standby.ATTACHED;
            } else if (r.getLong(4) > 0) {
              standby = Replication.Standby.UNKNOWN;
            } else {
              standby = Replication.Standby.NONE;
            }
            return new Replication(jdbc.config().synchronousReplication(), names, standby);
          } catch (SQLException e) {
            if (NOT_ALLOWED.equals(e.getSQLState())) {
              return new Replication(
                  jdbc.config().synchronousReplication(), "", Replication.Standby.UNKNOWN);
            }
            throw e;
          }
        });
  }
}
