package dev.fencing.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What a user of a published module can see names no type of the libraries we build on, and every
 * exception we declare is one of ours: over every exported package of every published module (its
 * {@code module-info} exports, or, without one, its packages but {@code internal}), no public or
 * protected type, method, constructor or field mentions a third-party type (in a parameter, a
 * return, a field, a supertype, a type bound or a {@code throws} clause), and every public
 * exception extends {@link dev.fencing.FencingException} or is an {@link IllegalArgumentException}
 * or {@link IllegalStateException}. Two inputs are allowed: a {@link javax.sql.DataSource}, and the
 * Jackson mapper a codec factory codes with ({@code JacksonJobCodec.of(JsonMapper)}). Reads the
 * compiled main code ({@link MainCode}) and each module's compiled {@code module-info}.
 */
@AnalyzeClasses(locations = MainCode.class, importOptions = MainCode.class)
class PublicApiTest {

  /** The modules a user depends on. */
  static final List<String> PUBLISHED =
      List.of(
          "fencing-api",
          "fencing-tuning",
          "fencing-receiver",
          "fencing-postgres",
          "fencing-etcd",
          "fencing-keyed",
          "fencing-zookeeper",
          "fencing-http",
          "fencing-runtime",
          "fencing-schedule",
          "fencing-micrometer",
          // JacksonJobCodec.of takes the application's JsonMapper: coding with it is its point
          "fencing-jackson",
          "fencing-spring-boot-starter",
          // its servlet and authenticator name jakarta.servlet types: mounting a servlet is its
          // point
          "fencing-console");

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
          "tools.jackson.",
          "io.vertx.",
          "io.grpc.",
          "com.cronutils.",
          "gg.jte.",
          // the starter's public types are plain Java: Spring reaches them by reflection only
          "org.springframework.");

  @ArchTest
  static void noThirdPartyTypeEscapesAnExportedPackageAndEveryExceptionIsOurs(JavaClasses classes) {
    Set<String> exported = new TreeSet<>();
    for (String module : PUBLISHED) {
      exported.addAll(exportedPackages(module, classes));
    }
    JavaClasses api =
        classes.that(
            describe(
                "are public in a package that a published module exports",
                type -> exported.contains(type.getPackageName()) && visible(type)));

    assertThat(api.size()).as("public types read").isGreaterThan(50);
    classes()
        .should(nameOnlyOurTypes())
        .as("third-party types or foreign exceptions in a published API")
        .check(api);
  }

  @Test
  void findsEveryKindOfEscape() {
    Set<String> violations =
        check(new ClassFileImporter().importClasses(Leaky.class).get(Leaky.class));

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
    Set<String> violations =
        check(
            new ClassFileImporter()
                .importClasses(DataSourceThatLeaks.class)
                .get(DataSourceThatLeaks.class));

    String leaky = DataSourceThatLeaks.class.getName().replace('$', '.');
    assertThat(violations)
        .containsExactlyInAnyOrder(
            leaky + ".connection(java.lang.String) mentions java.sql.Connection",
            leaky + ".connection(java.lang.String) mentions java.sql.SQLException");
  }

  @Test
  void aCodecFactoryMayTakeAJacksonMapperAndNameItNowhereElse() {
    Set<String> violations =
        check(
            new ClassFileImporter().importClasses(CodecFactories.class).get(CodecFactories.class));

    String leaky = CodecFactories.class.getName().replace('$', '.');
    String mapper = "tools.jackson.databind.json.JsonMapper";
    assertThat(violations)
        .containsExactlyInAnyOrder(
            leaky + ".mapper() mentions " + mapper,
            leaky + ".codec(" + mapper + ") mentions " + mapper,
            leaky + ".json(" + mapper + ") mentions " + mapper);
  }

  /** Codec factories: only the static one returning a JobCodec may take a mapper. */
  @SuppressWarnings("unused")
  public static class CodecFactories {
    public static dev.fencing.JobCodec of(tools.jackson.databind.json.JsonMapper mapper) {
      return dev.fencing.JobCodec.rawJson();
    }

    public static tools.jackson.databind.json.JsonMapper mapper() {
      return null;
    }

    public dev.fencing.JobCodec codec(tools.jackson.databind.json.JsonMapper mapper) {
      return dev.fencing.JobCodec.rawJson();
    }

    public static String json(tools.jackson.databind.json.JsonMapper mapper) {
      return "";
    }
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

  /** Each class's violations of {@link #check}, one event each. */
  private static ArchCondition<JavaClass> nameOnlyOurTypes() {
    return new ArchCondition<>(
        "name no third-party type, and extend FencingException if they are exceptions") {
      @Override
      public void check(JavaClass type, ConditionEvents events) {
        for (String violation : PublicApiTest.check(type)) {
          events.add(SimpleConditionEvent.violated(type, violation));
        }
      }
    };
  }

  /** What {@code type} shows a user that it should not: foreign types, a foreign exception. */
  static Set<String> check(JavaClass type) {
    Set<String> violations = new TreeSet<>();
    String name = display(type);
    if (type.isAssignableTo(Throwable.class)
        && !type.isAssignableTo("dev.fencing.FencingException")
        && !type.isAssignableTo(IllegalArgumentException.class)
        && !type.isAssignableTo(IllegalStateException.class)) {
      violations.add(
          name
              + " extends "
              + type.getRawSuperclass().map(JavaClass::getName).orElse("nothing")
              + ", not FencingException");
    }
    // a data source is the one JDBC type a user hands us and we may hand back as a class (one to
    // go under the user's pool, PrimaryWaitingDataSource): it may name DataSource as its supertype
    // and JDBC types in the methods of that interface it implements, and nowhere else
    boolean dataSource = type.isAssignableTo("javax.sql.DataSource");
    List<JavaType> supertypes = new ArrayList<>();
    type.getSuperclass().ifPresent(supertypes::add);
    supertypes.addAll(type.getInterfaces());
    supertypes.removeIf(t -> t.toErasure().getName().equals("javax.sql.DataSource"));
    supertypes.addAll(type.getTypeParameters());
    for (JavaType t : supertypes) {
      forbidden(t).forEach(f -> violations.add(name + " mentions " + f));
    }
    for (JavaField field : type.getFields()) {
      if (visible(field.getModifiers())) {
        forbidden(field.getType())
            .forEach(f -> violations.add(name + "." + field.getName() + " mentions " + f));
      }
    }
    for (JavaCodeUnit member : type.getCodeUnits()) {
      if (!visible(member.getModifiers())
          || member.getModifiers().contains(JavaModifier.BRIDGE)
          || dataSource && ofDataSource(member)) {
        continue;
      }
      String shown = name + "." + signature(member);
      for (JavaType parameter : member.getParameterTypes()) {
        if (!parameter.getName().equals("javax.sql.DataSource")
            && !(codecFactory(member) && jackson(parameter))) {
          forbidden(parameter).forEach(f -> violations.add(shown + " mentions " + f));
        }
      }
      List<JavaType> others = new ArrayList<>(member.getThrowsClause().getTypes());
      others.addAll(member.getTypeParameters());
      if (member instanceof JavaMethod m) {
        others.add(m.getReturnType());
      }
      for (JavaType t : others) {
        forbidden(t).forEach(f -> violations.add(shown + " mentions " + f));
      }
    }
    return violations;
  }

  /**
   * Whether {@code member} makes a {@code JobCodec}, statically: such a factory may take the mapper
   * the application configured (a Jackson type), which it codes with.
   */
  private static boolean codecFactory(JavaCodeUnit member) {
    return member instanceof JavaMethod method
        && method.getModifiers().contains(JavaModifier.STATIC)
        && method.getRawReturnType().getName().equals("dev.fencing.JobCodec");
  }

  /** Whether {@code type} is Jackson's, 2 or 3. */
  private static boolean jackson(JavaType type) {
    String name = type.toErasure().getName();
    return name.startsWith("tools.jackson.") || name.startsWith("com.fasterxml.jackson.");
  }

  /** Whether {@code member} implements a method of {@link javax.sql.DataSource}. */
  private static boolean ofDataSource(JavaCodeUnit member) {
    if (!(member instanceof JavaMethod)) {
      return false;
    }
    try {
      javax.sql.DataSource.class.getMethod(
          member.getName(),
          member.getRawParameterTypes().stream().map(JavaClass::reflect).toArray(Class<?>[]::new));
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  /** The forbidden classes {@code type} mentions, anywhere in its type arguments and bounds. */
  private static Set<String> forbidden(JavaType type) {
    return type.getAllInvolvedRawTypes().stream()
        .map(JavaClass::getName)
        .filter(n -> FORBIDDEN.stream().anyMatch(n::startsWith))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static String signature(JavaCodeUnit member) {
    String params =
        member.getParameterTypes().stream()
            .map(PublicApiTest::display)
            .collect(Collectors.joining(", "));
    return (member.isConstructor() ? "new" : member.getName()) + "(" + params + ")";
  }

  private static String display(JavaType type) {
    return type instanceof JavaClass c && c.isArray()
        ? display(c.getComponentType()) + "[]"
        : type.getName().replace('$', '.');
  }

  /** Whether a user sees the class: public, or public or protected and nested in one they see. */
  private static boolean visible(JavaClass type) {
    if (type.isTopLevelClass()) {
      return type.getModifiers().contains(JavaModifier.PUBLIC);
    }
    return type.isMemberClass()
        && visible(type.getModifiers())
        && visible(type.getEnclosingClass().orElseThrow());
  }

  private static boolean visible(Set<JavaModifier> modifiers) {
    return (modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED))
        && !modifiers.contains(JavaModifier.SYNTHETIC);
  }

  /**
   * The packages a module exports to everyone (its compiled {@code module-info}), or, without one,
   * all its packages but internal ones.
   */
  static Set<String> exportedPackages(String module, JavaClasses classes) {
    Path info = MainCode.REPOSITORY.resolve(module).resolve("target/classes/module-info.class");
    if (Files.exists(info)) {
      try (InputStream in = Files.newInputStream(info)) {
        return ModuleDescriptor.read(in).exports().stream()
            .filter(e -> !e.isQualified())
            .map(ModuleDescriptor.Exports::source)
            .collect(Collectors.toCollection(TreeSet::new));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    Set<String> packages =
        classes.that(MainCode.inModule(module)).stream()
            .map(JavaClass::getPackageName)
            .filter(p -> !p.equals("internal") && !p.contains(".internal") && !p.isEmpty())
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(packages).as("packages of %s", module).isNotEmpty();
    return packages;
  }
}
