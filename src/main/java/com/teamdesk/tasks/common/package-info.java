/**
 * Cross-cutting pieces with no business rules of their own: the small unchecked exception
 * hierarchy that the web layer maps once to {@code application/problem+json} (RFC 9457),
 * and one page of a keyset-paginated list.
 */
package com.teamdesk.tasks.common;
