package dev.fencing.receiver;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * A pool of one real connection that is never reset: every {@code getConnection()} hands out the
 * same connection, and {@code close()} gives it back as it is, so a test can see the state a
 * receiver leaves it in (its auto-commit mode, an open or aborted transaction).
 */
final class OneConnection implements AutoCloseable {

  private final Connection real;

  OneConnection(DataSource source, boolean autoCommit) throws SQLException {
    this.real = source.getConnection();
    real.setAutoCommit(autoCommit);
  }

  /** The connection itself, to inspect. */
  Connection connection() {
    return real;
  }

  /** A data source whose every connection is this one, with {@code close()} doing nothing. */
  DataSource dataSource() {
    Connection handedOut =
        (Connection)
            Proxy.newProxyInstance(
                OneConnection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) ->
                    method.getName().equals("close") ? null : invoke(real, method, args));
    return (DataSource)
        Proxy.newProxyInstance(
            OneConnection.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection")) {
                return handedOut;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  @Override
  public void close() throws SQLException {
    real.close();
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
