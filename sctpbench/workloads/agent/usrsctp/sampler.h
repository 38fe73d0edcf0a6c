/* Periodic per-path sampling on usrsctp: the `path` records of the kernel
 * agent's sampler (linux/sampler.h), one line per peer address every
 * --sample-interval from COMM_UP on, read with upaths_describe.
 * SRTT_RAW is in ms on this stack (usrsctp has no jiffies).
 */
#ifndef SCTPBENCH_USRSCTP_SAMPLER_H
#define SCTPBENCH_USRSCTP_SAMPLER_H

#include "common/records.h"
#include "stack.h"

#include <stdint.h>

struct usampler {
	int64_t interval_ns; /* 0 = sampling disabled */
	int64_t next_ns;     /* INT64_MAX until started */
};

void usampler_init(struct usampler *u, int64_t interval_ms);
/* First round at `now`, then every interval. */
void usampler_start(struct usampler *u, int64_t now);
int64_t usampler_deadline(const struct usampler *u);
/* Takes a round if due; missed rounds are skipped, not replayed. */
void usampler_poll(struct usampler *u, struct ustack_sock *s, struct records *r, int64_t now);
/* One round regardless of the schedule. */
void usampler_round(struct ustack_sock *s, struct records *r);

#endif
