package com.teamdesk.tasks.it.support;

import com.teamdesk.tasks.it.support.TestData.TestTeam;
import java.net.URL;
import org.junit.jupiter.api.BeforeEach;

/**
 * The client side of a black-box IT class: before each test a fresh team ({@link #t}) in the test database and an
 * {@link Api} on the server under test ({@link #api}). The class says where that server is ({@link #root()}: its
 * Arquillian deployment's {@code @ArquillianResource URL}, or its shared server's).
 */
public abstract class ApiCase {
    /** The test database over plain JDBC, for a test's own rows and checks. */
    protected final TestData data = TestData.fromEnvironment();
    /** The server under test as a client calls it (set before each test). */
    protected Api api;
    /** This test's own team (set before each test). */
    protected TestTeam t;

    /** @return the root URL of the server under test */
    protected abstract URL root();

    @BeforeEach
    final void newTeamAndClient() {
        api = Api.at(root());
        t = data.newTeam();
    }
}
