package dev.fencing.testkit.property;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * How many jobs of a queue hold a valid lease at this moment, counted by the store itself: what
 * {@link LimitSafetyProperties} checks a queue's running limit against after every action. A {@link
 * dev.fencing.testkit.process.FencingBackend} whose jobs live in the test's PostgreSQL implements
 * it next to its queue, with the store's own notion of a valid lease (the lease has not run out on
 * the database clock, and its job still runs under it):
 *
 * <pre>{@code
 * public long validLeases(Connection c, String schema, String queue) throws SQLException {
 *   try (PreparedStatement s = c.prepareStatement("select count(*) from \"" + schema
 *       + "\".my_job where queue = ? and status = 'running'"
 *       + " and lease_expires_at > clock_timestamp()")) {
 *     s.setString(1, queue);
 *     try (ResultSet r = s.executeQuery()) { r.next(); return r.getLong(1); }
 *   }
 * }
 * }</pre>
 *
 * A backend that does not implement it is checked only through its jobs' snapshots ({@link
 * dev.fencing.FencedQueue#find}), each lease judged against one reading of the database clock taken
 * just before them.
 *
 * @since 0.1
 */
@FunctionalInterface
public interface ValidLeaseCount {

  /**
   * Returns how many jobs of {@code queue} hold a valid lease at {@code clock_timestamp()}, read in
   * one statement so that every lease is judged at the same moment.
   *
   * @param connection a connection to the test's database, in auto-commit mode
   * @param schema the schema the backend's tables were installed in
   * @throws SQLException if the statement fails; the interleaving is aborted
   */
  long validLeases(Connection connection, String schema, String queue) throws SQLException;
}
