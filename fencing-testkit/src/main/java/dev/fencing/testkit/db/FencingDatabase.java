package dev.fencing.testkit.db;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class a PostgreSQL by {@link PostgresFixture}'s rule (environment URL, else
 * Testcontainers, else embedded). Test methods and constructors may take a {@link
 * PostgresFixture.Database}, or a {@link TestSchema}: an empty schema of their own, dropped after
 * the test.
 *
 * @since 0.1
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(FencingDatabaseExtension.class)
public @interface FencingDatabase {}
