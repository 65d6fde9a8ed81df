package dev.fencing.postgres;

/**
 * One migration script of the schema, as this jar ships it ({@link PostgresFencing#migrations()}),
 * for teams that run their own migrations. Its objects are unqualified: run it with {@code
 * search_path} set to your schema, whole and in one transaction, after every script of a lower
 * version. It records its own version in {@code fencing_schema_version} as its last statement.
 *
 * @param version its version: the scripts are numbered 1, 2, ... without gaps
 * @param description what its name says
 * @param resource where it lies in the jar, named as Flyway names a versioned migration ({@code
 *     META-INF/fencing/postgres/migrations/V1__fencing_schema.sql})
 * @param sql its text
 * @since 0.1
 */
public record SchemaMigration(int version, String description, String resource, String sql) {}
