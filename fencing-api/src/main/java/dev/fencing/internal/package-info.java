/**
 * What the fencing modules share and users do not: parameter checks and the one rendering of bad
 * values. Exported only to the fencing modules; not an API, may change in any release.
 */
@NullMarked
package dev.fencing.internal;

import org.jspecify.annotations.NullMarked;
