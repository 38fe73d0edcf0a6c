/* One clock for every timestamp the agent records.
 *
 * CLOCK_MONOTONIC is shared by all network namespaces of one (guest)
 * kernel, so a client's generation time and a server's receive time can be
 * subtracted directly, and it never jumps when someone sets the wall clock.
 */
#ifndef SCTPBENCH_CLOCK_H
#define SCTPBENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)

static inline int64_t now_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC always exists on Linux; the call cannot fail with a
	 * valid pointer, so there is no error path to carry around. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + (int64_t)ts.tv_nsec;
}

static inline struct timespec ns_to_timespec(int64_t ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ns / NS_PER_S);
	ts.tv_nsec = (long)(ns % NS_PER_S);
	return ts;
}

#endif
