package com.teamdesk.tasks.it.support;

import java.net.URI;
import java.net.http.HttpResponse;

/**
 * Checks each answer {@link Api#send} receives against the API's contract (issue 50). The implementation is found
 * with {@link java.util.ServiceLoader}: client-side it is {@code it.contract.ResponseContract} (the served OpenAPI
 * document and Atlassian's validator); inside a test deployment, where that package and its libraries are not
 * deployed, there is none and nothing is checked.
 */
public interface ResponseCheck {
    /**
     * @param root     the server root the request went to, e.g. {@code http://127.0.0.1:8123/}
     * @param method   the HTTP method
     * @param uri      the request's URI
     * @param response the answer, body read
     * @throws AssertionError when the answer does not match the document the server at {@code root} serves
     */
    void check(URI root, String method, URI uri, HttpResponse<byte[]> response);
}
