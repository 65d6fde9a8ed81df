package dev.fencing.etcd.internal;

import dagger.BindsInstance;
import dagger.Component;
import jakarta.inject.Singleton;

/** The etcd backend's object graph, wired at compile time. */
@Singleton
@Component(modules = EtcdModule.class)
public interface EtcdComponent {

  /** The backend, not yet checked to be reachable. */
  EtcdResourceOwnership ownership();

  /** Creates the graph. */
  @Component.Factory
  interface Factory {
    EtcdComponent create(@BindsInstance Config config);
  }

  /** Returns a new graph for {@code config}; it opens no connection until first used. */
  static EtcdComponent create(Config config) {
    return DaggerEtcdComponent.factory().create(config);
  }
}
