package dev.fencing.postgres;

import dev.fencing.SchemaVersionException;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.Installer;
import dev.fencing.postgres.internal.PostgresComponent;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a handle knows of its schema: the engine it records, with that engine's graph, and whether
 * this library may run on its version. Read at the first call that needs it (or by the install),
 * and kept once the schema holds tables at a runnable version; the parts consult it before each
 * call ({@link GatedParts}). Engines go by the names the schema records them by ({@link
 * Installer#APPEND_ONLY}, {@link Installer#UPDATE_IN_PLACE}); the front door maps them to its
 * {@code Engine}.
 */
final class SchemaGate {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresFencing.class);

  /** The graph of the engine the builder named (else the default): the parts no engine owns. */
  private final PostgresComponent graph;

  private final Config config;
  private final Function<String, PostgresComponent> graphs;
  private final @Nullable String named;

  /** The engine's graph, once the schema's record was read; null before. */
  private volatile @Nullable Resolved resolved;

  /** The engine a handle runs on, with its graph, or why it may not run. */
  private record Resolved(
      String engine, PostgresComponent graph, @Nullable RuntimeException refusal) {}

  /**
   * What the schema records of itself, its engine checked, and why this library may not run on it.
   */
  record Status(Installer.State state, Optional<String> engine, @Nullable String refusal) {}

  /**
   * Returns the gate of a new handle: its graphs built by {@code configs} of each engine, the
   * schema installed first if {@code install}; warns if synchronous mode finds no standby.
   */
  static SchemaGate open(
      Function<String, Config> configs,
      DataSource dataSource,
      DataSource listening,
      @Nullable String named,
      boolean install) {
    Function<String, PostgresComponent> graphs =
        e -> PostgresComponent.create(dataSource, listening, configs.apply(e));
    String provisional = named != null ? named : Installer.APPEND_ONLY;
    Config config = configs.apply(provisional);
    SchemaGate gate = new SchemaGate(graphs.apply(provisional), config, graphs, named);
    if (install) {
      gate.install();
    }
    if (config.synchronousReplication()) {
      gate.warnWithoutStandby();
    }
    return gate;
  }

  private SchemaGate(
      PostgresComponent graph,
      Config config,
      Function<String, PostgresComponent> graphs,
      @Nullable String named) {
    this.graph = graph;
    this.config = config;
    this.graphs = graphs;
    this.named = named;
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
   * records; throws as {@link #engineGraph} does if this library may not run on it.
   */
  private void install() {
    graph.schemaSetup().install(named);
    resolved = resolve(graph.schemaSetup().state());
    engineGraph();
  }

  /**
   * Returns the graph of the engine the schema records, reading the record at the first call that
   * needs it; throws {@link SchemaVersionException} at every call if this library may not run on
   * the schema's version, {@link IllegalStateException} if the builder named another engine.
   */
  PostgresComponent engineGraph() {
    Resolved r = resolved();
    throwIfVersionRefused(r);
    if (r.refusal() != null) {
      throw new IllegalStateException(r.refusal().getMessage());
    }
    return r.graph();
  }

  /** The engine the handle runs on (see {@link PostgresFencing#engine()}). */
  String engine() {
    engineGraph();
    return resolved().engine();
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
    return new Status(
        state,
        state.engine().map(SchemaGate::known),
        refusal == null ? null : refusal.getMessage());
  }

  /** Gives back the listening connections of the graphs built. */
  void close() {
    graph.listener().close();
    Resolved r = resolved;
    if (r != null && r.graph() != graph) {
      r.graph().listener().close();
    }
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
    return r == null ? "not read yet" : shown(r.engine());
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
   * Keeps {@code fresh} for every later call, unless the schema must be read again at the next:
   * refused for its version (a worker started before its migration runs once it lands), or holding
   * no fencing tables yet.
   */
  private synchronized Resolved settle(Resolved fresh, Installer.State state) {
    if (resolved != null) {
      return resolved;
    }
    if (fresh.refusal() instanceof SchemaVersionException || !state.tables()) {
      return fresh;
    }
    resolved = fresh;
    return fresh;
  }

  /**
   * A schema at a version this library may not run on is refused; else the schema's engine record
   * wins; without one, the builder's engine, else the default.
   */
  private Resolved resolve(Installer.State state) {
    String provisional = named != null ? named : Installer.APPEND_ONLY;
    SchemaVersionException version = Installer.refusal(config.schema(), state);
    if (version != null) {
      return new Resolved(provisional, graph, version);
    }
    String engine = state.engine().map(SchemaGate::known).orElse(provisional);
    RuntimeException refusal = null;
    if (named != null && !engine.equals(named)) {
      refusal =
          new IllegalStateException(
              "schema "
                  + config.schema()
                  + " records engine "
                  + shown(engine)
                  + " (table "
                  + config.schema()
                  + ".fencing_schema), but this handle was built with engine(Engine."
                  + shown(named)
                  + "): its queues would claim from tables no producer of the schema fills. Build it"
                  + " without engine(...) or with engine(Engine."
                  + shown(engine)
                  + "), or use another schema");
    }
    return new Resolved(engine, engine.equals(provisional) ? graph : graphs.apply(engine), refusal);
  }

  /** The engine's name as the front door's {@code Engine} spells it. */
  private static String shown(String engine) {
    return engine.toUpperCase(Locale.ROOT);
  }

  /** {@code stored}, if this library knows the engine. */
  private static String known(String stored) {
    return switch (stored) {
      case Installer.APPEND_ONLY, Installer.UPDATE_IN_PLACE -> stored;
      default ->
          throw new IllegalStateException(
              "fencing_schema records engine '"
                  + stored
                  + "', which this version of the library does not know: upgrade it");
    };
  }
}
