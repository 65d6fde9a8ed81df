/** Implementation of keyed calls; not API, not exported. */
@NullMarked
package dev.fencing.keyed.internal;

import org.jspecify.annotations.NullMarked;
