/**
 * The DIGEST kind (issue 29): a member's digest of their open tickets — or, for staff, the team's — delivered
 * as one notification, fenced like the reminder (side effects and completion in one JTA transaction that a
 * lost lease rolls back) and idempotent per task (one notification per task and recipient). The third kind,
 * added to prove the ledger kind-blind: this package and its handler bean are all it took.
 */
package com.teamdesk.tasks.task.digest;
