package dev.fencing;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What an attempt to acquire a resource got: {@link Acquired} with a new ownership and a new,
 * larger epoch, or {@link Held} when someone (perhaps another process with the same owner name)
 * holds it and nothing changed.
 *
 * @since 0.1
 */
public sealed interface Acquisition permits Acquisition.Acquired, Acquisition.Held {

  /** The resource asked for. */
  String resource();

  /**
   * The resource is now owned by the caller.
   *
   * @param ownership the new ownership, with its epoch
   */
  record Acquired(Ownership ownership) implements Acquisition {
    /**
     * @throws NullPointerException if {@code ownership} is null
     */
    public Acquired {
      Objects.requireNonNull(ownership, "ownership");
    }

    @Override
    public String resource() {
      return ownership.resource();
    }
  }

  /**
   * Someone holds the resource; try again after its lease may have run out.
   *
   * @param resource the resource
   * @param owner the holder's owner name
   * @param epoch the holder's epoch
   * @param expiresAt when the holder's ownership ends unless renewed, if the backend knows (a
   *     ZooKeeper ownership lasts as long as its holder's session, which only the holder can see)
   */
  record Held(String resource, String owner, Epoch epoch, @Nullable Instant expiresAt)
      implements Acquisition {
    /**
     * @throws NullPointerException if a required reference is null
     */
    public Held {
      Objects.requireNonNull(resource, "resource");
      Objects.requireNonNull(owner, "owner");
      Objects.requireNonNull(epoch, "epoch");
    }
  }
}
