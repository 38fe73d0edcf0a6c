/* Message generation schedule: periodic, Poisson, saturate or a schedule
 * file.
 *
 * The schedule is a pure function of (kind, rate, seed, start time), so
 * two runs with the same seed offer the network the same gaps and their
 * differences come from the network, not from the load.
 *
 * `saturate` has no schedule: every message is due from the start time
 * on, and the client sends whenever the socket accepts data (bulk
 * transfer); rate and seed play no part in it.
 *
 * `schedule` replays a schedule file (schedule.h): message i at t0 + its
 * offset; rate and seed play no part in it either.
 */
#ifndef SCTPBENCH_ARRIVAL_H
#define SCTPBENCH_ARRIVAL_H

#include "schedule.h"

#include <stdint.h>

enum arrival_kind {
	ARRIVAL_PERIODIC,
	ARRIVAL_POISSON,
	ARRIVAL_SATURATE,
	ARRIVAL_SCHEDULE,
};

/* The command-line word for each kind: "periodic", "poisson", "saturate",
 * "schedule".
 * parse returns 0, or -1 for an unknown word (*out untouched). */
int arrival_kind_parse(const char *word, enum arrival_kind *out);
const char *arrival_kind_name(enum arrival_kind kind);

/* xoshiro256** seeded through splitmix64 (the seeding its authors
 * recommend): small, fast, and identical on every platform, unlike
 * rand()/random(). */
struct prng {
	uint64_t s[4];
};

void prng_seed(struct prng *p, uint64_t seed);
uint64_t prng_next(struct prng *p);
/* Uniform in [0, 1) with 53 random bits. */
double prng_unit(struct prng *p);

struct arrival {
	enum arrival_kind kind;
	double rate;     /* messages per second, > 0 (unused by saturate) */
	int64_t t0;      /* scheduled time of message 0 */
	uint64_t index;  /* next message to schedule */
	int64_t last;    /* scheduled time of the previous message */
	struct prng rng;
	const struct schedule *sched; /* schedule only */
};

/* sched: the file's messages for ARRIVAL_SCHEDULE, else unused (NULL). */
void arrival_init(struct arrival *a, enum arrival_kind kind, double rate,
		  uint64_t seed, const struct schedule *sched, int64_t t0);
/* Scheduled CLOCK_MONOTONIC ns of the next message; the first call
 * returns t0 (schedule: t0 + the first offset).  Saturate returns t0 for
 * every message: all are due at once, and the caller paces by the socket
 * and ends at its deadline.  Schedule returns INT64_MAX after the file's
 * last message: there is no next one. */
int64_t arrival_next(struct arrival *a);

#endif
