package dev.fencing.postgres.internal;

import dev.fencing.FencedOffException;
import dev.fencing.Lease;
import dev.fencing.Renewal;
import dev.fencing.internal.Validate;
import jakarta.inject.Provider;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What both engines' stores ({@code inplace.InPlaceStore}, {@code append.AppendStore}) do alike:
 * the job table an enqueue writes, the operators' view of the engine's tables, and a renewal of one
 * lease as a batch of one.
 */
public abstract class EngineStore implements JobStore {

  private final JobTable jobs;
  private final Provider<? extends Admin> admin;

  /**
   * @param admin the engine's operators' view, made when first asked for
   */
  protected EngineStore(JobTable jobs, Provider<? extends Admin> admin) {
    this.jobs = jobs;
    this.admin = admin;
  }

  @Override
  public final JobTable jobs() {
    return jobs;
  }

  @Override
  public final Lease renew(Lease lease, Duration leaseLength) {
    Objects.requireNonNull(lease, "lease");
    Validate.leaseLength(leaseLength);
    return switch (renewAll(List.of(lease), leaseLength).getFirst()) {
      case Renewal.Renewed renewed -> renewed.lease();
      case Renewal.Lost lost -> throw new FencedOffException(lost.refusal());
    };
  }

  @Override
  public final Admin admin() {
    return admin.get();
  }
}
