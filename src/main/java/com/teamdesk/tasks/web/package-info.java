/**
 * The REST API ({@code /api/v1}, API.md): the JAX-RS application with MicroProfile JWT
 * authentication, thin resources that translate a request into one call of an application
 * service (team and task packages) and map the result to JSON, and the single set of exception
 * mappers that answers every error as {@code application/problem+json} (RFC 9457).
 */
package com.teamdesk.tasks.web;
