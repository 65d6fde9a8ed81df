package dev.fencing.postgres.internal;

import java.util.function.Function;
import org.jooq.DSLContext;

/**
 * A read the engines make on its own: one statement on a connection of its own, committed as every
 * statement of {@link Jdbc#run}, and retried after a transient failure ({@link Jdbc#guarded}). A
 * fresh read that explains a refusal, a job's snapshot, a queue's depth, the operators' views.
 */
public final class Reads {

  private Reads() {}

  /** What {@code read} reads with jOOQ on a connection of its own, retried as configured. */
  public static <T> T read(Jdbc jdbc, Function<DSLContext, T> read) {
    return jdbc.guarded(() -> jdbc.run(c -> read.apply(jdbc.on(c))));
  }
}
