package dev.fencing.ha;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * A data source that reports every connection attempt made through it: when it began and ended
 * (wall clock, ms) and how it ended, as {@code connect <start> <end> ok} or {@code connect <start>
 * <end> <SQLSTATE> <message>}, tab-separated, to a line sink. Given to a pool, it shows when the
 * pool tries to connect across a failover ({@link RecoveryAfterKillTest}).
 */
final class TracedDataSource {

  private TracedDataSource() {}

  /** {@code delegate}, its connection attempts reported to {@code lines}. */
  static DataSource of(DataSource delegate, Consumer<String> lines) {
    return (DataSource)
        Proxy.newProxyInstance(
            TracedDataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              boolean connect = method.getName().equals("getConnection");
              long start = System.currentTimeMillis();
              try {
                Object result = method.invoke(delegate, args);
                if (connect) {
                  report(lines, start, "ok");
                }
                return result;
              } catch (InvocationTargetException e) {
                if (connect && e.getCause() instanceof SQLException sql) {
                  String message = sql.getMessage() == null ? "" : sql.getMessage();
                  report(lines, start, sql.getSQLState() + " " + message.replaceAll("\\s+", " "));
                }
                throw e.getCause();
              }
            });
  }

  private static void report(Consumer<String> lines, long start, String outcome) {
    lines.accept(
        String.join(
            "\t",
            "connect",
            Long.toString(start),
            Long.toString(System.currentTimeMillis()),
            outcome));
  }
}
