/* One clock for every timestamp the agent records.
 *
 * CLOCK_MONOTONIC (the default) is shared by all network namespaces of one
 * (guest) kernel, so a client's generation time and a server's receive time
 * can be subtracted directly, and it never jumps when someone sets the wall
 * clock.  When the two ends run on different machines (the ansible backend)
 * their monotonic clocks have nothing in common: `--clock realtime` makes
 * every timestamp CLOCK_REALTIME instead, which the harness has checked to
 * agree between the machines before the run (docs/backends.md, "Real machines").
 */
#ifndef SCTPBENCH_CLOCK_H
#define SCTPBENCH_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)

/* Chooses the clock by name ("monotonic" or "realtime"); false for any other
 * name.  Called once, before anything is timed or recorded. */
bool clock_select(const char *name);

/* The clock in force as the records' header names it: "CLOCK_MONOTONIC". */
const char *clock_name(void);

int64_t now_ns(void);

static inline struct timespec ns_to_timespec(int64_t ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ns / NS_PER_S);
	ts.tv_nsec = (long)(ns % NS_PER_S);
	return ts;
}

#endif
