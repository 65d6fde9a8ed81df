/**
 * Typed job payloads and results as JSON with Jackson 3: {@link
 * dev.fencing.jackson.JacksonJobCodec}.
 */
@NullMarked
package dev.fencing.jackson;

import org.jspecify.annotations.NullMarked;
