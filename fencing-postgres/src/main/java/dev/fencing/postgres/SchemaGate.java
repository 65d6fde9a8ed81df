package dev.fencing.postgres;

import dev.fencing.FencedQueue;
import dev.fencing.SchemaVersionException;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.internal.Admin;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.EngineChoice;
import dev.fencing.postgres.internal.EngineKind;
import dev.fencing.postgres.internal.Installer;
import dev.fencing.postgres.internal.PostgresComponent;
import dev.fencing.postgres.internal.Retention;
import dev.fencing.spi.ScheduleStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a handle knows of its schema: the engine it records, with that engine's parts, and whether
 * this library may run on its version. Read at the first call that needs it (or by the install),
 * and kept once the schema holds tables at a runnable version; the parts consult it before each
 * call ({@link GatedParts}). A handle has one graph: the engine is settled in it once ({@link
 * EngineChoice}), and the parts of that engine are taken from it then, once.
 */
final class SchemaGate {

  // named after the front door, by name: the gate must not refer to the class that holds it
  private static final Logger LOG = LoggerFactory.getLogger("dev.fencing.postgres.PostgresFencing");

  /** The handle's one graph. */
  private final PostgresComponent graph;

  private final Config config;

  /** The engine's record as read, once the schema's record was read and settled; null before. */
  private volatile @Nullable Resolved resolved;

  /** The parts of the settled engine, taken from the graph once; null before. */
  private volatile @Nullable EngineParts parts;

  /** The engine a handle runs on, or why it may not run. */
  private record Resolved(EngineKind engine, @Nullable RuntimeException refusal) {}

  /** The parts of the graph that run on the engine's tables. */
  record EngineParts(FencedQueue queue, ScheduleStore schedules, Admin admin, Retention retention) {

    private static EngineParts of(PostgresComponent graph) {
      return new EngineParts(graph.queue(), graph.schedules(), graph.admin(), graph.retention());
    }
  }

  /**
   * What the schema records of itself, its engine checked, and why this library may not run on it.
   */
  record Status(Installer.State state, @Nullable String refusal) {}

  /**
   * Returns the gate of a new handle on {@code graph}, the schema installed first if {@code
   * install}; warns if synchronous mode finds no standby.
   */
  static SchemaGate open(PostgresComponent graph, Config config, boolean install) {
    SchemaGate gate = new SchemaGate(graph, config);
    if (install) {
      gate.install();
    }
    if (config.synchronousReplication()) {
      gate.warnWithoutStandby();
    }
    return gate;
  }

  private SchemaGate(PostgresComponent graph, Config config) {
    this.graph = graph;
    this.config = config;
  }

  /** The schema every part uses. */
  String schema() {
    return config.schema();
  }

  /** The graph of the parts no engine owns. */
  PostgresComponent graph() {
    return graph;
  }

  /**
   * Installs the schema (recording the builder's engine if it records none) and keeps what it then
   * records; throws as {@link #engineParts} does if this library may not run on it.
   */
  private void install() {
    graph.schemaSetup().install();
    Installer.State state = graph.schemaSetup().state();
    settle(resolve(state), state);
    runnable();
  }

  /**
   * Returns the parts of the engine the schema records, reading the record at the first call that
   * needs it; throws {@link SchemaVersionException} at every call if this library may not run on
   * the schema's version, {@link IllegalStateException} if the builder named another engine. While
   * the schema holds no tables, which decides no engine yet, the parts are of the provisional
   * engine and new at each call: they only find the schema not installed.
   */
  EngineParts engineParts() {
    runnable();
    EngineParts p = parts;
    if (p != null) {
      return p;
    }
    if (resolved == null) {
      return EngineParts.of(graph);
    }
    synchronized (this) {
      if (parts == null) {
        parts = EngineParts.of(graph);
      }
      return parts;
    }
  }

  /** The engine the handle runs on (see {@link PostgresFencing#engine()}). */
  EngineKind engine() {
    return runnable().engine();
  }

  /** What was resolved, if this library may run on it; else throws (see {@link #engineParts}). */
  private Resolved runnable() {
    Resolved r = resolved();
    throwIfVersionRefused(r);
    if (r.refusal() != null) {
      throw new IllegalStateException(r.refusal().getMessage());
    }
    return r;
  }

  /**
   * The check of the parts no engine owns (ownership, the outbox, receivers), before each of their
   * calls until the schema's version was read and found runnable: throws {@link
   * SchemaVersionException} if this library may not run on it. The read is tried once: when the
   * database cannot be reached, the call goes ahead and reports that itself, with its own name and
   * its own retries, and the version is read again at the next call.
   */
  void checkPartVersion() {
    if (resolved != null) {
      return;
    }
    Installer.State state;
    try {
      state = graph.schemaSetup().stateOnce();
    } catch (StoreUnavailableException e) {
      return;
    }
    throwIfVersionRefused(settle(resolve(state), state));
  }

  /** What the schema records of itself now (see {@link PostgresFencing#schemaStatus()}). */
  Status status() {
    Installer.State state = graph.schemaSetup().state();
    SchemaVersionException refusal = Installer.refusal(config.schema(), state);
    return new Status(state, refusal == null ? null : refusal.getMessage());
  }

  /** Gives back the listening connection of the graph. */
  void close() {
    graph.listener().close();
  }

  /** Says so when no synchronous standby is attached: every write would wait. */
  private void warnWithoutStandby() {
    String mode = "synchronous mode on schema " + config.schema();
    try {
      Replication replication = graph.replication().probe();
      if (replication.standby() != Replication.Standby.ATTACHED) {
        LOG.warn(
            "{}, but the synchronous standby is {} (synchronous_standby_names '{}'): writes wait"
                + " until one attaches, or do not wait for any if none is named",
            mode,
            replication.standby(),
            replication.standbyNames());
      }
    } catch (StoreUnavailableException e) {
      LOG.warn("{}: could not ask for standbys", mode, e);
    }
  }

  /** The engine if read, for {@code toString}. */
  String engineIfRead() {
    Resolved r = resolved;
    return r == null ? "not read yet" : r.engine().name();
  }

  private static void throwIfVersionRefused(Resolved r) {
    if (r.refusal() instanceof SchemaVersionException version) {
      // a new instance each time, so that each caller's stack shows where it called from
      throw new SchemaVersionException(
          version.schema(), version.found(), version.expected(), version.getMessage());
    }
  }

  private Resolved resolved() {
    Resolved r = resolved;
    if (r != null) {
      return r;
    }
    synchronized (this) {
      if (resolved == null) {
        Installer.State state = graph.schemaSetup().state();
        return settle(resolve(state), state);
      }
      return resolved;
    }
  }

  /**
   * Keeps {@code fresh} for every later call, and settles the graph's engine, unless the schema
   * must be read again at the next: refused for its version (a worker started before its migration
   * runs once it lands), or holding no fencing tables yet.
   */
  private synchronized Resolved settle(Resolved fresh, Installer.State state) {
    if (resolved != null) {
      return resolved;
    }
    if (fresh.refusal() instanceof SchemaVersionException || !state.tables()) {
      return fresh;
    }
    graph.engineChoice().settle(fresh.engine());
    resolved = fresh;
    return fresh;
  }

  /**
   * A schema at a version this library may not run on is refused; else the schema's engine record
   * wins; without one, the builder's engine, else the default.
   */
  private Resolved resolve(Installer.State state) {
    EngineKind provisional = graph.engineChoice().provisional();
    SchemaVersionException version = Installer.refusal(config.schema(), state);
    if (version != null) {
      return new Resolved(provisional, version);
    }
    EngineKind engine = state.engine().orElse(provisional);
    EngineKind named = config.engine();
    RuntimeException refusal = null;
    if (named != null && engine != named) {
      refusal =
          new IllegalStateException(
              "schema "
                  + config.schema()
                  + " records engine "
                  + engine
                  + " (table "
                  + config.schema()
                  + ".fencing_schema), but this handle was built with engine(Engine."
                  + named
                  + "): its queues would claim from tables no producer of the schema fills. Build it"
                  + " without engine(...) or with engine(Engine."
                  + engine
                  + "), or use another schema");
    }
    return new Resolved(engine, refusal);
  }
}
