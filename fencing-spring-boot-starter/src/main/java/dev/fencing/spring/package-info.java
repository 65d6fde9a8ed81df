/**
 * Spring Boot auto-configuration for fencing: {@link dev.fencing.spring.FencingProperties} (the
 * {@code fencing.*} properties), {@link dev.fencing.spring.QueueHandler} (a bean that runs one
 * queue's jobs) and {@link dev.fencing.spring.FencedWorkers} (the runtimes the starter runs).
 */
@NullMarked
package dev.fencing.spring;

import org.jspecify.annotations.NullMarked;
