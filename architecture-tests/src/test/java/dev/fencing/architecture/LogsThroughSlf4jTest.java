package dev.fencing.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The main code logs through SLF4J, which an application binds to its own logging (Logback, Log4j),
 * never through {@code java.util.logging}, which such an application does not see: no class calls
 * {@code System.getLogger} or a {@code System.Logger}'s methods, nor anything of {@code
 * java.util.logging}, except a {@code DataSource}'s {@code getParentLogger}, which JDBC's contract
 * makes return a {@code java.util.logging.Logger}. Reads the compiled main code ({@link MainCode}).
 */
@AnalyzeClasses(locations = MainCode.class, importOptions = MainCode.class)
class LogsThroughSlf4jTest {

  /** An access to java.util.logging or to System.Logger, from outside a getParentLogger. */
  private static final DescribedPredicate<JavaAccess<?>> JAVA_UTIL_LOGGING =
      describe(
          "System.getLogger, System.Logger or java.util.logging (outside getParentLogger)",
          access -> {
            String owner = access.getTargetOwner().getName();
            boolean logs =
                owner.startsWith("java.util.logging.")
                    || owner.equals("java.lang.System$Logger")
                    || (owner.equals("java.lang.System")
                        && access.getTarget().getName().equals("getLogger"));
            return logs && !access.getOrigin().getName().equals("getParentLogger");
          });

  private static final ArchRule RULE =
      noClasses()
          .should()
          .accessTargetWhere(JAVA_UTIL_LOGGING)
          .as("no main class should log through java.util.logging")
          .because("a Logback or Log4j application gets only what goes through SLF4J");

  @ArchTest
  static void noMainClassLogsThroughJavaUtilLogging(JavaClasses classes) {
    RULE.check(classes);
  }

  @Test
  void findsEachWayOfLoggingThroughJavaUtilLoggingButAParentLogger(@TempDir Path dir) {
    JavaClasses classes =
        Fixtures.compile(
            dir,
            Map.of(
                "a/SystemLogger.java",
                "package a;\n"
                    + "class SystemLogger { static final System.Logger LOG ="
                    + " System.getLogger(\"a\"); }",
                "a/SystemLoggerCall.java",
                "package a;\n"
                    + "class SystemLoggerCall { void f(System.Logger log) {"
                    + " log.log(System.Logger.Level.INFO, \"x\"); } }",
                "a/JulLogger.java",
                "package a;\n"
                    + "class JulLogger { void f() {"
                    + " java.util.logging.Logger.getLogger(\"a\").info(\"x\"); } }",
                "a/Parent.java",
                "package a;\n"
                    + "class Parent { public java.util.logging.Logger getParentLogger() {"
                    + " return java.util.logging.Logger.getLogger(\"org.postgresql\"); } }",
                "a/Slf4jLike.java",
                "package a;\nclass Slf4jLike { void f() { System.getProperty(\"x\"); } }"));

    Set<String> found = new TreeSet<>();
    RULE.evaluate(classes)
        .handleViolations(
            (Collection<JavaAccess<?>> violating, String message) ->
                violating.forEach(a -> found.add(MainCode.topLevel(a.getOriginOwner()).getName())));
    assertThat(found).containsExactly("a.JulLogger", "a.SystemLogger", "a.SystemLoggerCall");
  }
}
