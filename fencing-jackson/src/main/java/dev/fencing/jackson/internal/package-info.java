/** The Jackson codec behind {@link dev.fencing.jackson.JacksonJobCodec}. Not an API. */
@NullMarked
package dev.fencing.jackson.internal;

import org.jspecify.annotations.NullMarked;
