package dev.fencing.postgres.internal;

/**
 * What the limits ({@link RunningLimits}, {@link LimitSettings}) need of an engine to count its
 * slots: {@code valid} and {@code underWay} test slot {@code s} (its lease valid at {@code
 * clock_timestamp()}; its job neither ended nor given back); {@code running} selects {@code
 * (job_id, epoch)} of the jobs of queue {@code ?} handed out and not yet ended or given back, whose
 * slots a new limit seeds.
 */
public record SlotTests(String valid, String underWay, String running) {}
