package com.teamdesk.tasks.it.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.fasterxml.jackson.jakarta.rs.json.JacksonJsonProvider;
import com.teamdesk.tasks.client.api.ApiException;
import com.teamdesk.tasks.client.api.TasksApi;
import com.teamdesk.tasks.client.model.ExportTaskCreate;
import com.teamdesk.tasks.client.model.Problem;
import com.teamdesk.tasks.client.model.Task;
import com.teamdesk.tasks.it.contract.ContractServer;
import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import java.io.IOException;
import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.eclipse.microprofile.rest.client.RestClientBuilder;
import org.glassfish.jersey.CommonProperties;
import org.junit.jupiter.api.Test;

/**
 * The main job through a client nobody here wrote (issue 50): a MicroProfile Rest Client that the OpenAPI
 * Generator made (pre-integration-test) from the document the production WAR serves, run on Jersey's
 * implementation against that same server (the contract server, worker on). An export of a team's tickets is
 * created, followed to COMPLETED and downloaded; a refusal arrives as the generated {@code Problem}.
 */
class GeneratedClientIT {
    private static final Duration EXPORT_TIMEOUT = Duration.ofSeconds(120);

    final TestData data = TestData.fromEnvironment();

    @Test
    void exportRunsToCompletedAndDownloadsThroughTheGeneratedClient() throws Exception {
        TestTeam t = data.newTeam();
        String mine = "Generated client " + UUID.randomUUID();
        data.ticket(t.id(), t.customer(), t.staff(), mine + " one");
        data.ticket(t.id(), t.customer(), null, mine + " two");
        data.ticket(t.otherTeam(), t.outsider(), null, mine + " of another team");
        TasksApi tasks = client(TasksApi.class, Tokens.of(t.owner()));

        ExportTaskCreate body = new ExportTaskCreate().scope(ExportTaskCreate.ScopeEnum.TEAM);
        String key = UUID.randomUUID().toString();
        Task created = tasks.createTeamTask(t.id(), body, key);
        assertEquals("EXPORT", String.valueOf(created.getKind()));
        assertEquals(t.id(), created.getTeamId());
        assertEquals(created.getId(), tasks.createTeamTask(t.id(), body, key).getId(),
                "the generated header parameter carries Idempotency-Key (R25): the same task again");

        Task done = awaitCompleted(tasks, created.getId());
        assertEquals(100, done.getProgress());

        String csv = tasks.getTaskResult(created.getId());
        List<CSVRecord> rows = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get()
                .parse(new StringReader(csv.startsWith("\uFEFF") ? csv.substring(1) : csv)).getRecords();
        assertEquals(2, rows.size(), "the team's two tickets, nothing of the other team:\n" + csv);
        assertTrue(csv.contains(mine + " one") && csv.contains(mine + " two"), csv);
        assertFalse(csv.contains("of another team"), csv);
    }

    @Test
    void refusalsArriveAsTheGeneratedProblem() throws ApiException {
        TestTeam t = data.newTeam();
        TasksApi tasks = client(TasksApi.class, Tokens.of(t.owner()));
        // a key every time: Jersey's MP Rest Client sends a null header parameter as an empty header, which R25 refuses
        Task created = tasks.createTeamTask(t.id(), new ExportTaskCreate().scope(ExportTaskCreate.ScopeEnum.TEAM),
                UUID.randomUUID().toString());
        awaitCompleted(tasks, created.getId());

        Problem notFailed = problem(refusal(() -> tasks.retryTask(created.getId(), UUID.randomUUID().toString())));
        assertEquals(409, notFailed.getStatus());
        assertEquals("task.not_failed", String.valueOf(notFailed.getCode()));

        Problem notFound = problem(refusal(() -> tasks.getTask(UUID.randomUUID())));
        assertEquals(404, notFound.getStatus());
        assertEquals("task.not_found", String.valueOf(notFound.getCode()));
    }

    private static Task awaitCompleted(TasksApi tasks, UUID id) throws ApiException {
        long deadline = System.nanoTime() + EXPORT_TIMEOUT.toNanos();
        Task last = null;
        while (System.nanoTime() < deadline) {
            last = tasks.getTask(id);
            String status = String.valueOf(last.getStatus());
            if ("COMPLETED".equals(status)) {
                return last;
            }
            if ("FAILED".equals(status)) {
                throw new AssertionError("the export failed: " + last);
            }
            pause();
        }
        throw new AssertionError("the export did not complete within " + EXPORT_TIMEOUT + "; last: " + last);
    }

    /** The bounded poll's interval (not used for ordering). */
    private static void pause() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** A call of the generated client. */
    interface Call {
        void run() throws ApiException;
    }

    /**
     * @return the generated {@link ApiException} the call ends with. Jersey's MP Rest Client (3.1.10,
     *         {@code MethodModel.evaluateResponse}) wraps a declared checked exception of a
     *         {@code ResponseExceptionMapper} in a {@code WebApplicationException} instead of throwing it as the
     *         MicroProfile Rest Client specification says; the cause is the generated exception.
     */
    private static ApiException refusal(Call call) {
        try {
            call.run();
        } catch (ApiException e) {
            return e;
        } catch (WebApplicationException e) {
            if (e.getCause() instanceof ApiException api) {
                return api;
            }
            throw e;
        }
        throw new AssertionError("the call was not refused");
    }

    /** @return the problem+json body of a refusal, read as the generated model */
    private static Problem problem(ApiException refusal) {
        assertTrue(refusal.getResponse().getMediaType().toString().startsWith("application/problem+json"),
                "a refusal is problem+json: " + refusal.getResponse().getMediaType());
        return refusal.getResponse().readEntity(Problem.class);
    }

    /**
     * @return the generated interface on Jersey's MicroProfile Rest Client, at the contract server, with the bearer
     *         token and the generated models' JSON (Jackson; JSON-B off for this client)
     */
    static <T> T client(Class<T> api, String token) {
        ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .setDefaultPropertyInclusion(JsonInclude.Include.NON_NULL);
        return RestClientBuilder.newBuilder()
                .baseUri(ContractServer.root())
                .property(CommonProperties.JSON_BINDING_FEATURE_DISABLE_CLIENT, true)
                .register(new JacksonJsonProvider(json))
                .register(new Bearer(token))
                .build(api);
    }

    /** Adds {@code Authorization: Bearer <token>} to every request. */
    static final class Bearer implements ClientRequestFilter {
        private final String token;

        Bearer(String token) {
            this.token = token;
        }

        @Override
        public void filter(ClientRequestContext request) throws IOException {
            request.getHeaders().putSingle(HttpHeaders.AUTHORIZATION, "Bearer " + token);
        }
    }
}
