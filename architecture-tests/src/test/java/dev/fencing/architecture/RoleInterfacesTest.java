package dev.fencing.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The published surface is one interface per role with nothing left for a backend to discover at
 * run time: no public interface has a default method that throws {@link
 * UnsupportedOperationException} (a backend implements every operation, or the compiler says so),
 * and the worker side has one door, {@code FencedWorkers}: the runtime's per-queue machinery is not
 * public. Reads the compiled main code ({@link MainCode}).
 */
@AnalyzeClasses(locations = MainCode.class, importOptions = MainCode.class)
class RoleInterfacesTest {

  /** The default methods of public interfaces that construct an UnsupportedOperationException. */
  static Set<String> unsupportedDefaults(JavaClasses classes) {
    Set<String> found = new TreeSet<>();
    for (JavaClass c : classes) {
      if (!c.isInterface() || !c.getModifiers().contains(JavaModifier.PUBLIC)) {
        continue;
      }
      for (JavaMethod m : c.getMethods()) {
        boolean isDefault =
            !m.getModifiers().contains(JavaModifier.ABSTRACT)
                && !m.getModifiers().contains(JavaModifier.STATIC);
        boolean throwsUnsupported =
            m.getConstructorCallsFromSelf().stream()
                .anyMatch(
                    call ->
                        call.getTargetOwner().isEquivalentTo(UnsupportedOperationException.class));
        if (isDefault && throwsUnsupported) {
          found.add(c.getName() + "." + m.getName());
        }
      }
    }
    return found;
  }

  @ArchTest
  static void noPublicInterfaceDefaultThrowsUnsupportedOperation(JavaClasses classes) {
    assertThat(unsupportedDefaults(classes))
        .as("default methods of public interfaces that throw UnsupportedOperationException")
        .isEmpty();
  }

  @ArchTest
  static void theWorkerSideHasOneDoor(JavaClasses classes) {
    Set<String> publicRuntimeTypes = new TreeSet<>();
    for (JavaClass c : classes) {
      if (c.getPackageName().equals("dev.fencing.runtime")
          && c.getModifiers().contains(JavaModifier.PUBLIC)
          && c.isTopLevelClass()) {
        publicRuntimeTypes.add(c.getSimpleName());
      }
    }
    assertThat(publicRuntimeTypes)
        .as("public types of dev.fencing.runtime")
        .contains("FencedWorkers", "QueueSettings")
        .doesNotContain("FencedRuntime", "QueueRuntime");
    assertThat(classes.stream().map(JavaClass::getName))
        .as("no type of any module is named FencedRuntime any more")
        .noneMatch(n -> n.endsWith(".FencedRuntime"));
  }

  @Test
  void findsADefaultThatThrowsButNotAnAbstractMethodOrAClass(@TempDir Path dir) {
    JavaClasses classes =
        Fixtures.compile(
            dir,
            Map.of(
                "a/Throwing.java",
                "package a;\npublic interface Throwing { default void f() {"
                    + " throw new UnsupportedOperationException(\"no\"); } }",
                "a/Abstract.java",
                "package a;\npublic interface Abstract { void f(); default void g() { f(); } }",
                "a/Hidden.java",
                "package a;\ninterface Hidden { default void f() {"
                    + " throw new UnsupportedOperationException(); } }",
                "a/Impl.java",
                "package a;\npublic class Impl { void f() {"
                    + " throw new UnsupportedOperationException(); } }"));
    assertThat(unsupportedDefaults(classes)).containsExactly("a.Throwing.f");
  }
}
