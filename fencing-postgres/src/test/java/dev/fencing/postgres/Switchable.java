package dev.fencing.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/** A data source that forwards to whichever one {@code target} holds at the time of the call. */
final class Switchable {

  private Switchable() {}

  static DataSource dataSource(AtomicReference<DataSource> target) {
    return (DataSource)
        Proxy.newProxyInstance(
            Switchable.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              try {
                return method.invoke(target.get(), args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
