package com.teamdesk.tasks.it.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.report.ValidationReport;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The response validation of the API ITs ({@link ResponseContract}) can fail (issue 50): real answers of the
 * contract server pass, the same answers altered by one field or without their content type are reported, and
 * {@link Api} turns a mismatch into an {@link AssertionError}. Answers to paths the document does not have are
 * not judged.
 */
class ResponseContractIT {
    static OpenApiInteractionValidator validator;
    static Api api;
    final TestData data = TestData.fromEnvironment();

    @BeforeAll
    static void contract() {
        validator = ResponseContract.validator(ContractServer.document());
        api = Api.atRoot(ContractServer.root());
    }

    @Test
    void aTaskAsServedPassesAndTheSameTaskWithAWrongStatusDoesNot() {
        TestTeam t = data.newTeam();
        String owner = Tokens.of(t.owner());
        Reply created = api.post("teams/" + t.id() + "/tasks", owner, "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\"}");
        assertEquals(202, created.status(), created.toString());
        String path = "/api/v1/tasks/" + created.json().getString("id");
        Reply read = api.get(path.substring("/api/v1/".length()), owner);
        assertEquals(200, read.status(), read.toString());

        ValidationReport asServed = validate("GET", path, 200, contentType(read), read.body());
        assertFalse(asServed.hasErrors(), ResponseContract.render(asServed));

        String wrong = read.body().replaceFirst("\"status\":\"[A-Z_]+\"", "\"status\":42");
        assertTrue(wrong.contains("\"status\":42"), wrong);
        ValidationReport report = validate("GET", path, 200, contentType(read), wrong);
        assertTrue(report.hasErrors(), "a Task whose status is 42 must not pass: " + wrong);

        ValidationReport noType = validate("GET", path, 200, Map.of(), read.body());
        assertTrue(noType.hasErrors(), "an answer without its Content-Type must not pass");

        ValidationReport otherType = validate("GET", path, 200, Map.of("Content-Type", List.of("text/html")), read.body());
        assertTrue(otherType.hasErrors(), "an answer of another content type must not pass");

        ValidationReport undeclaredStatus = validate("GET", path, 299, contentType(read), read.body());
        assertTrue(undeclaredStatus.hasErrors(), "a status the operation does not declare must not pass");
    }

    @Test
    void aRefusalWithoutItsProblemFieldsDoesNotPass() {
        TestTeam t = data.newTeam();
        Reply refused = api.get("tasks/" + UUID.randomUUID(), Tokens.of(t.owner()));
        assertEquals(404, refused.status(), refused.toString());
        String path = "/api/v1/tasks/" + UUID.randomUUID();
        assertFalse(validate("GET", path, 404, contentType(refused), refused.body()).hasErrors());
        ValidationReport wrong = validate("GET", path, 404, contentType(refused), "{\"status\":\"not a number\",\"code\":7}");
        assertTrue(wrong.hasErrors(), "a problem whose status is text and code a number must not pass");
    }

    @Test
    void pathsTheDocumentDoesNotHaveAreNotJudged() {
        ValidationReport nope = validate("GET", "/api/v1/nope", 404, Map.of("Content-Type", List.of("text/plain")), "nope");
        assertFalse(nope.hasErrors(), ResponseContract.render(nope));
        assertTrue(ResponseContract.notInDocument(nope), "counted as not judged: " + ResponseContract.render(nope));
        ValidationReport health = validate("GET", "/health", 200, Map.of("Content-Type", List.of("application/json")), "{}");
        assertFalse(health.hasErrors(), ResponseContract.render(health));
        assertTrue(ResponseContract.notInDocument(health));
    }

    @Test
    void aMismatchFailsTheTestWithTheValidatorsReport() {
        // what Api.send does with every answer it receives (ResponseCheck), fed one altered answer
        TestTeam t = data.newTeam();
        Reply read = api.get("teams/" + t.id() + "/tasks", Tokens.of(t.owner()));
        assertEquals(200, read.status(), read.toString());
        String path = "/api/v1/teams/" + t.id() + "/tasks";
        ResponseContract.assertMatches(validator, "GET", path, 200, contentType(read), read.bytes());
        AssertionError e = assertThrows(AssertionError.class, () -> ResponseContract.assertMatches(validator, "GET", path, 200,
                contentType(read), "{\"items\":7}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains("does not match the served OpenAPI document"), e.getMessage());
        assertTrue(e.getMessage().contains("items"), "the report names what is wrong: " + e.getMessage());
    }

    private static Map<String, List<String>> contentType(Reply r) {
        return Map.of("Content-Type", List.of(r.header("Content-Type")));
    }

    private static ValidationReport validate(String method, String path, int status, Map<String, List<String>> headers, String body) {
        return ResponseContract.validate(validator, method, path, status, headers, body.getBytes(StandardCharsets.UTF_8));
    }
}
