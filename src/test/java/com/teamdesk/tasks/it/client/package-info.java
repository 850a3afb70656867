/**
 * Tests on the MicroProfile Rest Client the OpenAPI Generator makes from the served document (issue 50;
 * {@code target/generated-test-sources/openapi}, packages {@code com.teamdesk.tasks.client.*}). Compiled in
 * {@code pre-integration-test}, after the generation: the first test compilation leaves this package out.
 */
package com.teamdesk.tasks.it.client;
