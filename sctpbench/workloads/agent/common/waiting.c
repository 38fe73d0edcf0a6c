#include "waiting.h"

#include "clock.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>

static volatile sig_atomic_t terminated;
static sigset_t sleep_mask; /* the mask in force while sleeping */

static void on_terminate(int sig)
{
	(void)sig;
	terminated = 1;
}

int waiting_init(void)
{
	struct sigaction sa;
	sigset_t block;

	/* A wake-up may otherwise come up to 50 µs (the default timer slack) after its
	 * deadline, when the kernel coalesces it with another timer: a message then left
	 * late by however the other timers of the run happened to fall. */
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) != 0)
		return -1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL) != 0)
		return -1;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	if (sigprocmask(SIG_BLOCK, &block, &sleep_mask) != 0)
		return -1;
	sigdelset(&sleep_mask, SIGTERM);
	sigdelset(&sleep_mask, SIGINT);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_terminate;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0)
		return -1;
	return 0;
}

bool waiting_terminated(void)
{
	return terminated != 0;
}

int waiting_poll(struct pollfd *fds, nfds_t n, int64_t deadline_ns)
{
	return waiting_poll_from(fds, n, deadline_ns, deadline_ns == INT64_MAX ? 0 : now_ns());
}

int waiting_poll_from(struct pollfd *fds, nfds_t n, int64_t deadline_ns, int64_t now)
{
	struct timespec ts, *tsp = NULL;
	int rc;

	if (terminated)
		return 0;
	if (deadline_ns != INT64_MAX) {
		int64_t wait = deadline_ns - now;

		ts = ns_to_timespec(wait > 0 ? wait : 0);
		tsp = &ts;
	}
	rc = ppoll(fds, n, tsp, &sleep_mask);
	if (rc < 0 && errno == EINTR)
		return 0;
	return rc;
}
