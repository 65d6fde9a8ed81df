package dev.fencing.postgres.internal;

import dev.fencing.FencingException;
import dev.fencing.SchemaNotInstalledException;
import dev.fencing.StoreUnavailableException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Where a failure of the driver or of jOOQ becomes one of the exceptions of {@code fencing-api},
 * for every public method of every object the front door hands out: the store unreachable or
 * refusing after the retries ({@link StoreUnavailableException}), the schema missing ({@link
 * SchemaNotInstalledException}). The original failure stays the cause; the message names the
 * operation and the schema. Exceptions of the API, bad input and interruptions pass unchanged.
 */
public final class Boundary {

  /** Missing schema, missing table, missing column: the schema was not installed (or is older). */
  private static final Set<String> NOT_INSTALLED = Set.of("3F000", "42P01", "42703");

  private final Config config;

  Boundary(Config config) {
    this.config = config;
  }

  /** Returns the configuration's boundary. */
  public static Boundary of(Config config) {
    return new Boundary(config);
  }

  /**
   * Returns {@code target} seen through {@code api}: each call of a method of the interface (one
   * added later included) translates what escapes it.
   */
  public <T> T guard(Class<T> api, T target) {
    String name = api.getSimpleName();
    InvocationHandler handler = (proxy, method, args) -> invoke(proxy, name, target, method, args);
    return api.cast(Proxy.newProxyInstance(api.getClassLoader(), new Class<?>[] {api}, handler));
  }

  /**
   * Returns {@code api} calling {@code target} after {@code check} at each call but {@code
   * close()}, which the check may not stop (it may need the database); wrap it in {@link #guard} to
   * translate what the check throws as well.
   */
  public <T> T checked(Class<T> api, T target, Runnable check) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getDeclaringClass() == Object.class) {
            return method.invoke(target, args);
          }
          if (!(method.getName().equals("close") && method.getParameterCount() == 0)) {
            check.run();
          }
          try {
            return method.invoke(target, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return api.cast(Proxy.newProxyInstance(api.getClassLoader(), new Class<?>[] {api}, handler));
  }

  /**
   * Returns {@code api} calling, at each call, the object {@code target} supplies then; wrap it in
   * {@link #guard} to translate what the supplier throws as well.
   */
  public <T> T deferred(Class<T> api, Supplier<T> target) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getDeclaringClass() == Object.class) {
            return method.invoke(this, args);
          }
          try {
            return method.invoke(target.get(), args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return api.cast(Proxy.newProxyInstance(api.getClassLoader(), new Class<?>[] {api}, handler));
  }

  private @Nullable Object invoke(
      Object proxy, String api, Object target, Method method, @Nullable Object @Nullable [] args)
      throws Throwable {
    if (method.getName().equals("equals") && method.getParameterCount() == 1) {
      return args != null && proxy == args[0];
    }
    if (method.getName().equals("hashCode") && method.getParameterCount() == 0) {
      return System.identityHashCode(proxy);
    }
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw translate(api + "." + method.getName(), e.getCause());
    }
  }

  /** Runs {@code work}, translating what escapes it as {@link #translate} does. */
  public <T> T run(String operation, Supplier<T> work) {
    try {
      return work.get();
    } catch (RuntimeException e) {
      throw isStoreFailure(e) ? translated(operation, e) : e;
    }
  }

  /**
   * Returns {@code failure} as the caller should see it: unchanged if it is an exception of the
   * API, bad input, an interruption or an error; else translated, with {@code failure} as cause.
   */
  public Throwable translate(String operation, Throwable failure) {
    return isStoreFailure(failure) ? translated(operation, failure) : failure;
  }

  private FencingException translated(String operation, Throwable failure) {
    String said = JooqOwnership.describe(failure);
    if (failure instanceof Jdbc.ReplicationOutcomeUnknown) {
      return new StoreUnavailableException(
          "PostgreSQL (schema "
              + config.schema()
              + "): "
              + operation
              + ": the primary committed, but its wait for the synchronous standby was cancelled"
              + " ("
              + said
              + "), so a failover may lose the write; its outcome is unknown",
          failure);
    }
    String state = sqlState(failure);
    if (state != null && NOT_INSTALLED.contains(state)) {
      SchemaNotInstalledException missing =
          new SchemaNotInstalledException(
              config.schema(),
              "PostgreSQL: "
                  + operation
                  + " found no fencing tables of this version in schema "
                  + config.schema()
                  + " ("
                  + said
                  + "); install them with PostgresFencing.builder(dataSource).schema(\""
                  + config.schema()
                  + "\").build(), or run the scripts of PostgresFencing.migrations() with search_path set to "
                  + config.schema());
      missing.initCause(failure);
      return missing;
    }
    return new StoreUnavailableException(
        "PostgreSQL (schema "
            + config.schema()
            + "): "
            + operation
            + " failed"
            + (Transient.isTransient(failure)
                ? " (transient failures retried " + config.transientRetries() + " times)"
                : "")
            + ": "
            + said,
        failure);
  }

  /** Whether {@code failure} is the driver's, jOOQ's or JDBC's own, which must not escape. */
  static boolean isStoreFailure(Throwable failure) {
    if (failure instanceof FencingException || failure instanceof Error) {
      return false;
    }
    if (failure instanceof SQLException) {
      return true;
    }
    String name = failure.getClass().getName();
    return name.startsWith("org.jooq.")
        || name.startsWith("org.postgresql.")
        || name.startsWith("java.sql.")
        || failure instanceof Jdbc.CommitOutcomeUnknown
        || failure instanceof Jdbc.ReplicationOutcomeUnknown;
  }

  private static @Nullable String sqlState(Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; t != null && depth < Text.MAX_CAUSES; depth++, t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        return sql.getSQLState();
      }
    }
    return null;
  }
}
