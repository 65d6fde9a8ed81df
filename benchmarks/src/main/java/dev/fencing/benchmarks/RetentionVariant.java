package dev.fencing.benchmarks;

/** The aged tables of {@code RetentionBenchmark}: maintained or not, vacuumed or not. */
enum RetentionVariant {
  MAINTENANCE("_maint", "maintenance", true, true),
  NO_VACUUM("_novac", "maintenance, no VACUUM", true, false),
  AUTOVACUUM("_plain", "autovacuum only", false, true),
  DEFAULT_STORAGE("_default", "autovacuum only, default storage", false, true);

  final String suffix;
  final String label;
  final boolean maintained;
  final boolean vacuumed;

  RetentionVariant(String suffix, String label, boolean maintained, boolean vacuumed) {
    this.suffix = suffix;
    this.label = label;
    this.maintained = maintained;
    this.vacuumed = vacuumed;
  }
}
