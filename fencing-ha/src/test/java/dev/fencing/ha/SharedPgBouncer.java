package dev.fencing.ha;

import dev.fencing.testkit.db.PostgresFixture;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives test methods (and {@code @BeforeAll} methods) one {@link PgBouncerProcess} in transaction
 * mode, with {@value #SERVER_CONNECTIONS} server connections, in front of the test kit's shared
 * PostgreSQL ({@link PostgresFixture#get()}), for the whole test run; closed when the run ends. Use
 * with {@link ExtendWith}.
 */
public final class SharedPgBouncer implements ParameterResolver {

  /**
   * Fewer server connections than a test's clients, so that clients take turns on them, as under
   * load.
   */
  static final int SERVER_CONNECTIONS = 2;

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(SharedPgBouncer.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == PgBouncerProcess.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            "bouncer",
            key -> PgBouncerProcess.start(PostgresFixture.get(), SERVER_CONNECTIONS),
            PgBouncerProcess.class);
  }
}
