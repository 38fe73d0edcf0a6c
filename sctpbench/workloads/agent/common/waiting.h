/* Sleeping until I/O or a deadline, woken early only by SIGTERM/SIGINT.
 *
 * The termination signals stay blocked except inside ppoll(), so a signal
 * can never slip in between "check the flag" and "go to sleep": the
 * agent either sees it before sleeping or is woken by it.
 */
#ifndef SCTPBENCH_WAITING_H
#define SCTPBENCH_WAITING_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

/* Blocks SIGTERM/SIGINT, installs their handler, ignores SIGPIPE (a
 * vanished harness or peer must show up as an error return, not kill the
 * agent before it writes its `end` record). */
int waiting_init(void);
bool waiting_terminated(void);
/* deadline_ns: absolute CLOCK_MONOTONIC, INT64_MAX for none.  Returns as
 * poll() does; 0 also when interrupted by a termination signal. */
int waiting_poll(struct pollfd *fds, nfds_t n, int64_t deadline_ns);
/* The same, counting the wait from `now`, a reading the caller already
 * has: where waking a little late costs nothing, it spares a clock read. */
int waiting_poll_from(struct pollfd *fds, nfds_t n, int64_t deadline_ns, int64_t now);

#endif
