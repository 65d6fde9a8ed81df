package dev.fencing.internal;

import dev.fencing.JobCodec;

/** The codec {@link JobCodec#discover()} finds, looked for once, when first asked. */
public final class DiscoveredCodec {

  private DiscoveredCodec() {}

  private static final class Holder {
    static final JobCodec CODEC = JobCodec.discover();
  }

  /** Returns the discovered codec, the same on every call. */
  public static JobCodec get() {
    return Holder.CODEC;
  }
}
