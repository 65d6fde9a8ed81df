package dev.fencing.zookeeper.internal;

import dagger.BindsInstance;
import dagger.Component;
import dev.fencing.ResourceOwnership;
import jakarta.inject.Singleton;

/** The ZooKeeper backend's object graph, wired at compile time. */
@Singleton
@Component(modules = ZooKeeperModule.class)
public interface ZooKeeperComponent {

  /** The ownership service; building it connects to ZooKeeper. */
  ResourceOwnership ownership();

  /** Creates the graph. */
  @Component.Factory
  interface Factory {
    ZooKeeperComponent create(@BindsInstance Config config);
  }

  /** Returns a new graph for {@code config}. */
  static ZooKeeperComponent create(Config config) {
    return DaggerZooKeeperComponent.factory().create(config);
  }
}
