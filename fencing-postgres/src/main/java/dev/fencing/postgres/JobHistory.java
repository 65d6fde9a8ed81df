package dev.fencing.postgres;
import java.util.List;
public record JobHistory(List<EpochClaim> claims, boolean claimsComplete, List<RefusedWrite> refusals) {}
