package dev.fencing.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What a user of a published module can see names no type of the libraries we build on, and every
 * exception we declare is one of ours: over every exported package of every published module (its
 * {@code module-info} exports, or, without one, its packages but {@code internal}), no public or
 * protected type, method, constructor or field mentions a third-party type (in a parameter, a
 * return, a field, a supertype, a type bound or a {@code throws} clause), and every public
 * exception extends {@link dev.fencing.FencingException} or is an {@link IllegalArgumentException}
 * or {@link IllegalStateException}. A data source is the one JDBC type a user hands us, and the one
 * we may hand back as a class: a public class that implements {@link javax.sql.DataSource} (to go
 * under the user's pool, {@code PrimaryWaitingDataSource}) may name it as its supertype and JDBC
 * types in the methods of that interface it implements, and nowhere else.
 */
class PublicApiTest {

  private static final Path REPOSITORY = Path.of("").toAbsolutePath().getParent();

  /** The modules a user depends on. */
  static final List<String> PUBLISHED =
      List.of(
          "fencing-api",
          "fencing-receiver",
          "fencing-postgres",
          "fencing-etcd",
          "fencing-keyed",
          "fencing-zookeeper",
          "fencing-http",
          "fencing-runtime",
          "fencing-schedule",
          "fencing-micrometer",
          "fencing-spring-boot-starter");

  /** Packages of types that must not reach a user through our API. */
  static final List<String> FORBIDDEN =
      List.of(
          "org.jooq.",
          "org.postgresql.",
          "java.sql.",
          "javax.sql.",
          "org.eclipse.jetty.",
          "io.etcd.jetcd.",
          "org.apache.curator.",
          "org.apache.zookeeper.",
          "io.github.resilience4j.",
          "dagger.",
          "com.fasterxml.jackson.",
          "io.vertx.",
          "io.grpc.",
          "com.cronutils.",
          // the starter's public types are plain Java: Spring reaches them by reflection only
          "org.springframework.");

  private static final Pattern EXPORTS =
      Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

  @Test
  void noThirdPartyTypeEscapesAnExportedPackageAndEveryExceptionIsOurs() {
    Set<String> violations = new TreeSet<>();
    int types = 0;
    for (String module : PUBLISHED) {
      for (String pkg : exportedPackages(REPOSITORY.resolve(module))) {
        for (Class<?> type : publicTypes(REPOSITORY.resolve(module), pkg)) {
          types++;
          check(type, violations);
        }
      }
    }

    assertThat(types).as("public types read").isGreaterThan(50);
    assertThat(violations)
        .as("third-party types or foreign exceptions in a published API")
        .isEmpty();
  }

  @Test
  void findsEveryKindOfEscape() {
    Set<String> violations = new TreeSet<>();
    check(Leaky.class, violations);

    String leaky = Leaky.class.getName().replace('$', '.');
    assertThat(violations)
        .containsExactlyInAnyOrder(
            leaky + " extends java.sql.SQLException, not FencingException",
            leaky + " mentions java.sql.SQLException",
            leaky + ".new(java.sql.Connection) mentions java.sql.Connection",
            leaky + ".connection mentions java.sql.Connection",
            leaky + ".dataSource() mentions javax.sql.DataSource",
            leaky
                + ".rows(java.util.function.Function<java.sql.ResultSet, T>) mentions"
                + " java.sql.ResultSet",
            leaky + ".run() mentions java.sql.SQLTimeoutException");
  }

  @Test
  void aDataSourceMayNameJdbcTypesInItsDataSourceMethodsOnly() {
    Set<String> violations = new TreeSet<>();
    check(DataSourceThatLeaks.class, violations);

    String leaky = DataSourceThatLeaks.class.getName().replace('$', '.');
    assertThat(violations)
        .containsExactlyInAnyOrder(
            leaky + ".connection(java.lang.String) mentions java.sql.Connection",
            leaky + ".connection(java.lang.String) mentions java.sql.SQLException");
  }

  /** A data source whose own method, beside those of DataSource, leaks. */
  public abstract static class DataSourceThatLeaks implements javax.sql.DataSource {
    @Override
    public java.sql.Connection getConnection() throws java.sql.SQLException {
      return connection("");
    }

    public java.sql.Connection connection(String name) throws java.sql.SQLException {
      return null;
    }
  }

  /** Every way a type can leak, for {@link #findsEveryKindOfEscape}; a DataSource input is fine. */
  @SuppressWarnings("unused")
  public static class Leaky extends java.sql.SQLException {
    private static final long serialVersionUID = 1L;

    public java.sql.Connection connection;

    private java.sql.Statement hidden;

    public Leaky(java.sql.Connection connection) {}

    public Leaky(javax.sql.DataSource dataSource) {}

    public javax.sql.DataSource dataSource() {
      return null;
    }

    public void run() throws java.sql.SQLTimeoutException {}

    public <T> List<T> rows(java.util.function.Function<java.sql.ResultSet, T> mapper) {
      return List.of();
    }

    private void secret(java.sql.Connection c) {}
  }

  static void check(Class<?> type, Set<String> violations) {
    String name = display(type);
    if (Throwable.class.isAssignableFrom(type)
        && !dev.fencing.FencingException.class.isAssignableFrom(type)
        && !IllegalArgumentException.class.isAssignableFrom(type)
        && !IllegalStateException.class.isAssignableFrom(type)) {
      violations.add(
          name + " extends " + type.getSuperclass().getName() + ", not FencingException");
    }
    boolean dataSource = javax.sql.DataSource.class.isAssignableFrom(type);
    List<Type> supertypes = new ArrayList<>();
    if (type.getGenericSuperclass() != null) {
      supertypes.add(type.getGenericSuperclass());
    }
    supertypes.addAll(List.of(type.getGenericInterfaces()));
    supertypes.remove(javax.sql.DataSource.class);
    supertypes.addAll(List.of(type.getTypeParameters()));
    for (Type t : supertypes) {
      forbidden(t).forEach(f -> violations.add(name + " mentions " + f));
    }
    for (Field field : type.getDeclaredFields()) {
      if (visible(field.getModifiers()) && !field.isSynthetic()) {
        forbidden(field.getGenericType())
            .forEach(f -> violations.add(name + "." + field.getName() + " mentions " + f));
      }
    }
    List<Executable> members = new ArrayList<>(List.of(type.getDeclaredConstructors()));
    members.addAll(List.of(type.getDeclaredMethods()));
    for (Executable member : members) {
      if (!visible(member.getModifiers()) || member.isSynthetic()) {
        continue;
      }
      if (member instanceof Method m && (m.isBridge() || dataSource && ofDataSource(m))) {
        continue;
      }
      String shown = name + "." + signature(member);
      for (Type parameter : member.getGenericParameterTypes()) {
        if (parameter != javax.sql.DataSource.class) {
          forbidden(parameter).forEach(f -> violations.add(shown + " mentions " + f));
        }
      }
      List<Type> others = new ArrayList<>(List.of(member.getGenericExceptionTypes()));
      others.addAll(List.of(member.getTypeParameters()));
      if (member instanceof Method m) {
        others.add(m.getGenericReturnType());
      }
      for (Type t : others) {
        forbidden(t).forEach(f -> violations.add(shown + " mentions " + f));
      }
    }
  }

  /** Whether {@code method} implements a method of {@link javax.sql.DataSource}. */
  private static boolean ofDataSource(Method method) {
    try {
      javax.sql.DataSource.class.getMethod(method.getName(), method.getParameterTypes());
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  /** The forbidden classes {@code type} mentions, anywhere in its type arguments and bounds. */
  private static Set<String> forbidden(Type type) {
    Set<String> found = new TreeSet<>();
    collect(type, found, new java.util.HashSet<>());
    found.removeIf(n -> FORBIDDEN.stream().noneMatch(n::startsWith));
    return found;
  }

  private static void collect(Type type, Set<String> names, Set<Type> seen) {
    if (!seen.add(type)) {
      return;
    }
    switch (type) {
      case Class<?> c when c.isArray() -> collect(c.getComponentType(), names, seen);
      case Class<?> c -> names.add(c.getName());
      case ParameterizedType p -> {
        collect(p.getRawType(), names, seen);
        for (Type a : p.getActualTypeArguments()) {
          collect(a, names, seen);
        }
      }
      case GenericArrayType g -> collect(g.getGenericComponentType(), names, seen);
      case WildcardType w -> {
        for (Type b : w.getUpperBounds()) {
          collect(b, names, seen);
        }
        for (Type b : w.getLowerBounds()) {
          collect(b, names, seen);
        }
      }
      case TypeVariable<?> v -> {
        for (Type b : v.getBounds()) {
          collect(b, names, seen);
        }
      }
      default -> names.add(type.getTypeName());
    }
  }

  private static String signature(Executable member) {
    String params =
        String.join(
            ", ", Stream.of(member.getGenericParameterTypes()).map(Type::getTypeName).toList());
    String name = member instanceof Constructor<?> ? "new" : member.getName();
    return name + "(" + params + ")";
  }

  private static String display(Class<?> type) {
    return type.getName().replace('$', '.');
  }

  private static boolean visible(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  /** The packages a module exports to everyone, or, without module-info, all but internal ones. */
  static List<String> exportedPackages(Path module) {
    Path sources = module.resolve("src/main/java");
    try {
      Path info = sources.resolve("module-info.java");
      if (Files.exists(info)) {
        List<String> packages = new ArrayList<>();
        Matcher m = EXPORTS.matcher(SourceGraph.strip(Files.readString(info)));
        while (m.find()) {
          packages.add(m.group(1));
        }
        return packages;
      }
      try (Stream<Path> files = Files.walk(sources)) {
        return files
            .filter(f -> f.toString().endsWith(".java"))
            .map(f -> sources.relativize(f.getParent()).toString().replace('/', '.'))
            .filter(p -> !p.equals("internal") && !p.contains(".internal") && !p.isEmpty())
            .distinct()
            .sorted()
            .toList();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The public classes of {@code pkg} and their public and protected nested classes. */
  private static List<Class<?>> publicTypes(Path module, String pkg) {
    Path dir = module.resolve("src/main/java").resolve(pkg.replace('.', '/'));
    List<Class<?>> types = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
        String simple = file.getFileName().toString().replace(".java", "");
        if (simple.equals("package-info")) {
          continue;
        }
        addVisible(
            Class.forName(pkg + "." + simple, false, PublicApiTest.class.getClassLoader()), types);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ClassNotFoundException e) {
      throw new AssertionError("not on the test class path: " + e.getMessage(), e);
    }
    return types;
  }

  private static void addVisible(Class<?> type, List<Class<?>> types) {
    if (!visible(type.getModifiers())) {
      return;
    }
    types.add(type);
    for (Class<?> nested : type.getDeclaredClasses()) {
      addVisible(nested, types);
    }
  }
}
