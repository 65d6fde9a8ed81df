package dev.fencing.demo;

import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.property.ZombieSafetyProperties;

/**
 * The property suite against the update-in-place engine (PostgresZombieSafetyProperties runs the
 * default, append-only one): the same interleavings and invariants as {@link
 * PostgresZombieSafetyProperties}, a quarter as many of them ({@code -Dfencing.tries} divided by 4:
 * 15 in {@code verify}, 50 in {@code -Pfull}), to keep {@code verify} short.
 */
class UpdateInPlaceZombieSafetyProperties extends ZombieSafetyProperties {

  @Override
  protected Class<? extends FencingBackend> backend() {
    return UpdateInPlacePostgresBackend.class;
  }

  @Override
  protected int tries() {
    return Math.max(1, super.tries() / 4);
  }
}
