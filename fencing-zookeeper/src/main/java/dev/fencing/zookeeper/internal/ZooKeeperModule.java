package dev.fencing.zookeeper.internal;

import dagger.Binds;
import dagger.Module;
import dagger.Provides;
import dev.fencing.ResourceOwnership;
import jakarta.inject.Singleton;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.curator.framework.CuratorFramework;

@Module
abstract class ZooKeeperModule {

  @Binds
  abstract ResourceOwnership ownership(ZkOwnership ownership);

  @Provides
  @Singleton
  static CuratorFramework curator(Config config) {
    return Session.connect(config);
  }

  @Provides
  @Singleton
  static Calls calls(Config config) {
    return new Calls(config.callTimeout(), config.connectString());
  }

  @Provides
  @Singleton
  static ScheduledExecutorService timers() {
    return Executors.newSingleThreadScheduledExecutor(
        Thread.ofPlatform().daemon().name("fencing-zookeeper-leases").factory());
  }
}
