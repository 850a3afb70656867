/**
 * Clock-skew tests (issue 28, R37): servers whose JVM clock is wrong keep the ledger on PostgreSQL's time.
 */
package com.teamdesk.tasks.it.clock;
