package dev.fencing.etcd.internal;

import dagger.Module;
import dagger.Provides;
import io.etcd.jetcd.Client;
import jakarta.inject.Singleton;

@Module
abstract class EtcdModule {

  private EtcdModule() {}

  @Provides
  @Singleton
  static Client client(Config config) {
    // Calls fail fast while no member is reachable, and jetcd's own retries stop within one
    // call's budget: the caller's deadline, not the client's, bounds every operation.
    return Client.builder()
        .endpoints(config.endpoints())
        .connectTimeout(config.connectTimeout())
        .waitForReady(false)
        .retryMaxDuration(config.callTimeout())
        .build();
  }
}
