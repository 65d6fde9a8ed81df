package dev.fencing.ha;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives test methods one {@link PatroniCluster} (two nodes) for the whole test run, started on
 * first use and closed when the run ends: a test class pays for a start once per JVM, not once per
 * class. A test that kills or switches nodes leaves the cluster as it is; the next one begins with
 * {@link PatroniCluster#heal}. Use with {@link ExtendWith}.
 */
public final class SharedPatroniCluster implements ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(SharedPatroniCluster.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == PatroniCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent("cluster", key -> PatroniCluster.start(), PatroniCluster.class);
  }
}
