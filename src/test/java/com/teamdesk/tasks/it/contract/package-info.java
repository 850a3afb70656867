/**
 * The API's contract proved by tools nobody here wrote (issue 50), against the OpenAPI document the production WAR
 * serves: {@link com.teamdesk.tasks.it.contract.ContractServer} (the server {@code scripts/contract-server.sh} starts in
 * {@code pre-integration-test}, and the document it served), {@link com.teamdesk.tasks.it.contract.OpenApiContractIT}
 * (the lint: swagger-parser and Redocly's recommended rules), {@link com.teamdesk.tasks.it.contract.ResponseContract}
 * (every answer of the API ITs validated by Atlassian's swagger-request-validator) and
 * {@link com.teamdesk.tasks.it.contract.ResponseContractIT} (that validation can fail).
 */
package com.teamdesk.tasks.it.contract;
