/**
 * Support for the integration tests (failsafe, {@code *IT}) that run the application in a real
 * Payara Micro through Arquillian, against the real PostgreSQL and Redis of {@code ./teamdesk test}.
 *
 * <ul>
 * <li>{@link com.teamdesk.tasks.it.support.TestDeployments} — the test WAR: the real application
 * plus test classes, with per-class MicroProfile Config overrides and a random Redis prefix;</li>
 * <li>{@link com.teamdesk.tasks.it.support.TestData} — a fresh team and its rows per test, over
 * plain JDBC (client-side) or the app's datasource (in-server);</li>
 * <li>{@link com.teamdesk.tasks.it.support.Tokens} — RS256 tokens: valid, expired, foreign-signed;</li>
 * <li>{@link com.teamdesk.tasks.it.support.Api} — HTTP calls with status, headers, JSON body; client-side every
 * answer is validated against the served OpenAPI document ({@link com.teamdesk.tasks.it.support.ResponseCheck},
 * issue 50; {@code -Dteamdesk.test.validateResponses=true|report|false}).</li>
 * </ul>
 *
 * <h2>How a new IT class gets its deployment</h2>
 * Payara restarts for every Arquillian IT class (~11 s on two cores), so put many tests in one class, or share
 * a server:
 * <ul>
 * <li>a black-box class that needs no server of its own (HTTP only, its own team per test, no fault injected
 * into the server) runs on a {@link com.teamdesk.tasks.it.lifecycle.SharedServer}, one Payara for every class
 * of the same settings ({@code SharedServer.apiOnly()}: worker and timers off);</li>
 * <li>an in-server engine test extends {@link com.teamdesk.tasks.it.engine.EngineCase}: its deployment
 * ({@code EngineCase.deployment(config, ThisIT.class)}), the engine beans every such test injects and the reset
 * of its gates after each test.</li>
 * </ul>
 * <h2>Two lanes</h2>
 * Failsafe runs two classes at a time (pom.xml; docs/decisions.md "The suite in two lanes"). A class marked
 * {@code @Execution(ExecutionMode.SAME_THREAD)} runs one after another with the other marked ones: every
 * Arquillian class (Arquillian holds one deployment per JVM) and every class that works on the public schema. An
 * unmarked class runs beside them and must have a schema of its own ({@code it.lifecycle.PrivateSchema}, its
 * servers started by {@code ServerProcess}). {@code it.LanesTest} checks both.
 *
 * <p>A client-side test with a server of its own (calls the API over HTTP):
 * <pre>{@code
 * @ExtendWith(ArquillianExtension.class)
 * @Execution(ExecutionMode.SAME_THREAD)
 * class SomethingIT {
 *     @Deployment(testable = false)
 *     static WebArchive deployment() {
 *         return TestDeployments.app(Map.of("teamdesk.timers.enabled", "false"));
 *     }
 *     @ArquillianResource URL url;          // Api.at(url) rewrites the host to 127.0.0.1
 *     final TestData data = TestData.fromEnvironment();
 * }
 * }</pre>
 * An in-server test (runs inside Payara: {@code @Inject} application beans, JTA, the app's
 * datasource) lists itself and any CDI alternative among the extra classes. An
 * {@code @Alternative @Priority(Interceptor.Priority.APPLICATION + 10)} bean class with a
 * bean-defining annotation (or a producer method) replaces the application's bean for that
 * deployment only:
 * <pre>{@code
 * @ExtendWith(ArquillianExtension.class)
 * @Execution(ExecutionMode.SAME_THREAD)
 * class EngineIT {
 *     @Deployment
 *     static WebArchive deployment() {
 *         return TestDeployments.app(Map.of("teamdesk.worker.lock-duration-ms", "1000",
 *                 "teamdesk.worker.stalled-interval-ms", "100"), EngineIT.class, TestClock.class);
 *     }
 *     @Inject TaskProcessor processor;
 *     final TestData data = TestData.inServer();
 * }
 * }</pre>
 * Settings that differ per class belong in the overrides map, never in environment variables
 * (they outrank the deployment's config file and would apply to every class). See
 * {@code TicketServiceIT} for a working example of both mechanisms.
 */
package com.teamdesk.tasks.it.support;
