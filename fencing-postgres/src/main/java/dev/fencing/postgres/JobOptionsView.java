package dev.fencing.postgres;

import org.jspecify.annotations.Nullable;

public record JobOptionsView(int priority, @Nullable String group, @Nullable String key) {}
