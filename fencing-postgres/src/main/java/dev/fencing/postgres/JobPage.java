package dev.fencing.postgres;

import java.util.List;
import org.jspecify.annotations.Nullable;

public record JobPage(List<JobRow> jobs, @Nullable Long nextAfterId) {}
