package dev.fencing.benchmarks;

import java.util.Arrays;

/** Keeps up to a million latency samples (nanoseconds) and reports percentiles. Not thread-safe. */
final class LatencyRecorder {

  private long[] samples = new long[4096];
  private int size;

  void record(long nanos) {
    if (size == samples.length) {
      if (size >= 1 << 20) {
        return;
      }
      samples = Arrays.copyOf(samples, size * 2);
    }
    samples[size++] = nanos;
  }

  void addAll(LatencyRecorder other) {
    for (int i = 0; i < other.size; i++) {
      record(other.samples[i]);
    }
  }

  int count() {
    return size;
  }

  /** Returns the {@code index}-th sample kept, in nanoseconds. */
  long sample(int index) {
    return samples[index];
  }

  /** Returns the {@code p}-th percentile in milliseconds, or NaN without samples. */
  double percentileMillis(double p) {
    if (size == 0) {
      return Double.NaN;
    }
    long[] sorted = Arrays.copyOf(samples, size);
    Arrays.sort(sorted);
    int index = (int) Math.min(size - 1, Math.ceil(p / 100.0 * size) - 1);
    return sorted[Math.max(0, index)] / 1e6;
  }
}
