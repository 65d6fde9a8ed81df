package dev.fencing.testkit.db;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves {@link PostgresFixture.Database} and {@link TestSchema} parameters; see {@link
 * FencingDatabase}.
 *
 * @since 0.1
 */
public final class FencingDatabaseExtension implements ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(FencingDatabaseExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == PostgresFixture.Database.class || type == TestSchema.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    PostgresFixture.Database db;
    try {
      db = PostgresFixture.get();
    } catch (IllegalStateException e) {
      throw new ParameterResolutionException(e.getMessage(), e);
    }
    if (parameter.getParameter().getType() == PostgresFixture.Database.class) {
      return db;
    }
    String name = db.freshSchema("t");
    TestSchema schema = new TestSchema(db, name);
    context.getStore(NAMESPACE).put("schema-" + name, (AutoCloseable) () -> db.dropSchema(name));
    return schema;
  }
}
