/** The starter's wiring: auto-configuration, the workers' lifecycle, the health indicator. */
@NullMarked
package dev.fencing.spring.internal;

import org.jspecify.annotations.NullMarked;
