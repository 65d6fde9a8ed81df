/** Implementation of the HTTP receiver; not API, not exported. */
@NullMarked
package dev.fencing.http.internal;

import org.jspecify.annotations.NullMarked;
