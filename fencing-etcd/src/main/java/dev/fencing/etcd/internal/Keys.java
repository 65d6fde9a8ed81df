package dev.fencing.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;

/**
 * How resources and owners are written in etcd: a resource is the key {@code
 * <prefix>/resources/<name>}, its value the owner's name in UTF-8. Names are validated before they
 * get here, so a name and its bytes map one to one.
 */
@Singleton
final class Keys {

  private final String prefix;

  @Inject
  Keys(Config config) {
    this.prefix = config.prefix();
  }

  /** The key that holds {@code resource}. */
  ByteSequence resource(String resource) {
    return bytes(prefix + "/resources/" + resource);
  }

  /** The root under which all keys live, for the reachability check. */
  ByteSequence root() {
    return bytes(prefix);
  }

  /** The value that names {@code owner}. */
  static ByteSequence owner(String owner) {
    return bytes(owner);
  }

  /** The owner named in {@code kv}'s value. */
  static String owner(KeyValue kv) {
    return kv.getValue().toString(StandardCharsets.UTF_8);
  }

  private static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }
}
