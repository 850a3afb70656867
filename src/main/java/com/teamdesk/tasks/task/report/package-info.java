/**
 * The BATCH_REPORT kind (issue 52, R52): the completion that tells a batch's creator what its children came to.
 * A kind on the spi's contract, as DIGEST is: it imports only {@code task/spi} and the team package.
 */
package com.teamdesk.tasks.task.report;
