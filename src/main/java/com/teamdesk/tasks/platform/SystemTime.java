package com.teamdesk.tasks.platform;

import jakarta.inject.Qualifier;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Qualifies this JVM's own clock (issue 28): the source the application's {@link java.time.Clock} corrects
 * by the measured offset to PostgreSQL ({@link DatabaseClock}). Nothing but the offset measurement reads it;
 * a test deployment replaces it with an alternative to play a JVM whose clock is wrong.
 */
@Qualifier
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.FIELD, ElementType.PARAMETER, ElementType.TYPE})
public @interface SystemTime {
}
