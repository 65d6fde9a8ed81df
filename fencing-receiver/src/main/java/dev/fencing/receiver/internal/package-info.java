/** The receivers' implementations; not part of the API. */
@NullMarked
package dev.fencing.receiver.internal;

import org.jspecify.annotations.NullMarked;
