/** The console's inside: routes, sessions, page data. Not part of the API. */
@NullMarked
package dev.fencing.console.internal;

import org.jspecify.annotations.NullMarked;
