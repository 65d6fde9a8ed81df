package dev.fencing.postgres;
import java.time.Instant;
public record RefusedWrite(long epoch, String owner, String action, String kind, String reason, Instant at) {}
