package dev.fencing.postgres;

import dev.fencing.postgres.PostgresFencing.Engine;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a schema records of itself, and whether this library may run on it ({@link
 * PostgresFencing#schemaStatus()}): for a deployment's health check, or before a rolling upgrade.
 *
 * @param schema the schema read
 * @param version the newest version it records, 0 when it records none
 * @param compatibleFrom the oldest schema version whose library may run on it, 0 when it records no
 *     version
 * @param tables whether it holds any fencing table (a schema from before versions holds tables at
 *     version 0)
 * @param engine the engine it records, if any
 * @param needed the version this library needs ({@link PostgresFencing#schemaVersion()})
 * @param refusal why this library may not run on it, or null when it may (or when the schema holds
 *     no fencing tables at all: then it is not installed)
 */
public record SchemaStatus(
    String schema,
    int version,
    int compatibleFrom,
    boolean tables,
    Optional<Engine> engine,
    int needed,
    @Nullable String refusal) {

  /** Whether this library may run on the schema as it is: installed, and not refused. */
  public boolean runnable() {
    return tables && refusal == null;
  }
}
