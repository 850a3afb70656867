/**
 * The REST API ({@code /api/v1}, API.md): the JAX-RS application with MicroProfile JWT
 * authentication, thin resources that translate a request into one call of an application
 * service (team and task packages) and map the result to JSON, and the single set of exception
 * mappers that answers every error as {@code application/problem+json} (RFC 9457). Also the console's
 * server side (issue 15): its security headers ({@link com.teamdesk.tasks.web.ConsoleHeadersFilter}) and
 * the development sign-in ({@link com.teamdesk.tasks.web.DevLogin}); the console itself is static files
 * in {@code src/main/webapp}. And what the HTTP engine (Grizzly) would otherwise answer itself: reason phrases
 * and connections ({@link com.teamdesk.tasks.web.GrizzlyBridge}), paths it cannot decode
 * ({@link com.teamdesk.tasks.web.EnginePathGuard}).
 */
package com.teamdesk.tasks.web;
