/** The metered decorators and the meters they share; not exported. */
@NullMarked
package dev.fencing.micrometer.internal;

import org.jspecify.annotations.NullMarked;
