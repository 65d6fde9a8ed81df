package dev.fencing.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget.CodeUnitAccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.CompositeArchRule;

/**
 * The PostgreSQL backend's two storage engines meet at one seam (issue 33, part 5; docs/ENGINE.md):
 * each engine's classes are in a package of their own and name none of the other's; the code both
 * share names neither engine's classes (it is written against {@code internal.JobStore}), except
 * the Dagger module that binds the engine; and that module is the only code that asks which engine
 * a graph runs on ({@code EngineChoice.engine()}), so no class tests the engine but where objects
 * are wired. Reads fencing-postgres's compiled main code ({@link MainCode}).
 */
@AnalyzeClasses(locations = MainCode.class, importOptions = MainCode.class)
class EngineSeamTest {

  private static final String POSTGRES = "dev.fencing.postgres..";
  private static final String IN_PLACE = "dev.fencing.postgres.internal.inplace..";
  private static final String APPEND = "dev.fencing.postgres.internal.append..";

  /** The one class of shared code that names the engines' classes: it binds one of them. */
  private static final String BINDER = "dev.fencing.postgres.internal.PostgresModule";

  /** The class that says which engine a graph runs on. */
  private static final String CHOICE = "dev.fencing.postgres.internal.EngineChoice";

  /** A call of (or a reference to) {@code EngineChoice.engine()}: the graph's engine. */
  private static final DescribedPredicate<JavaAccess<?>> ASKS_WHICH_ENGINE =
      describe(
          "EngineChoice.engine()",
          access ->
              access.getTarget() instanceof CodeUnitAccessTarget method
                  && method.getOwner().getName().equals(CHOICE)
                  && method.getName().equals("engine")
                  && method.getRawParameterTypes().isEmpty());

  @ArchTest
  static void eachEngineNamesNoneOfTheOthersClassesAndSharedCodeNamesNeither(JavaClasses classes) {
    JavaClasses postgres = classes.that(resideInAPackage(POSTGRES));

    assertThat(topLevelClassesIn(postgres, IN_PLACE))
        .as("classes of the update-in-place engine")
        .isGreaterThan(3);
    assertThat(topLevelClassesIn(postgres, APPEND))
        .as("classes of the append-only engine")
        .isGreaterThan(3);
    CompositeArchRule.of(
            noClasses()
                .that()
                .resideInAPackage(IN_PLACE)
                .should()
                .dependOnClassesThat()
                .resideInAPackage(APPEND))
        .and(
            noClasses()
                .that()
                .resideInAPackage(APPEND)
                .should()
                .dependOnClassesThat()
                .resideInAPackage(IN_PLACE))
        .and(
            noClasses()
                .that()
                .resideOutsideOfPackages(IN_PLACE, APPEND)
                .and(not(belongTo(name(BINDER))))
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(IN_PLACE, APPEND))
        .as("no reference across the seam between the engines")
        .check(postgres);
  }

  @ArchTest
  static void onlyTheModuleThatBindsTheEngineAsksWhichEngineItIs(JavaClasses classes) {
    CompositeArchRule.of(
            noClasses()
                .that(not(belongTo(name(BINDER))))
                .should()
                .accessTargetWhere(ASKS_WHICH_ENGINE))
        .and(
            classes()
                .that()
                .haveFullyQualifiedName(BINDER)
                .should()
                .accessTargetWhere(ASKS_WHICH_ENGINE))
        .as("only " + BINDER + " asks which engine a graph runs on")
        .check(classes.that(resideInAPackage(POSTGRES)));
  }

  private static long topLevelClassesIn(JavaClasses classes, String pkg) {
    return classes.stream()
        .filter(JavaClass::isTopLevelClass)
        .filter(resideInAPackage(pkg))
        .count();
  }
}
