/* Human-readable failure messages on stderr.
 *
 * Records are for machines; stderr is what a person reads when a run
 * failed, so every message names the program and, where a system call
 * failed, carries the errno text.
 */
#ifndef SCTPBENCH_DIAG_H
#define SCTPBENCH_DIAG_H

#define AGENT_NAME "sctpbench-agent"

void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Appends ": strerror(err)". */
void diag_errno(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
