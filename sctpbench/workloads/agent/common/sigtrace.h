/* An emulated signal-strength trace: `--signal FILE`, the input of the
 * `signal` path-selection policy (policy.h).
 *
 * One point a line, `OFFSET_NS ADDR DBM`: from OFFSET_NS after the start
 * time T on (negative: before it), the path to peer address ADDR has a
 * received signal strength of DBM, until the address's next point.  The
 * Python side writes the file from the experiment's trace (path names made
 * peer addresses, times made offsets from the association's start).  Like a
 * schedule file, the whole file is read and checked before the association
 * is set up; the format is specified in RECORDS.md.  Pure logic, no
 * sockets.
 */
#ifndef SCTPBENCH_SIGTRACE_H
#define SCTPBENCH_SIGTRACE_H

#include "addr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SIGTRACE_LINE_MAX 1024
#define SIGTRACE_POINTS_MAX 1000000
/* One week either side of T, the command line's bound on durations. */
#define SIGTRACE_OFFSET_MAX_NS (INT64_C(1000000000) * 3600 * 24 * 7)
/* Far beyond any receiver's range, yet catching a unit slip (mW, W). */
#define SIGTRACE_DBM_MIN (-200.0)
#define SIGTRACE_DBM_MAX 50.0

/* One address's points, in time order. */
struct sigtrace_series {
	struct sockaddr_storage addr;
	int64_t *offset_ns;
	double *dbm;
	size_t n, cap;
};

struct sigtrace {
	struct sigtrace_series s[ADDR_LIST_MAX];
	size_t n_series;
	size_t points;
};

/* Reads and checks a whole file; `name` is what error messages call it.
 * Returns 0, or -1 with "NAME:LINE: reason" (or "NAME: reason") in err. */
int sigtrace_read(struct sigtrace *t, FILE *f, const char *name, char *err, size_t errlen);
int sigtrace_load(struct sigtrace *t, const char *path, char *err, size_t errlen);
void sigtrace_free(struct sigtrace *t);
/* The value in force for the path to `addr` (ports ignored) at `offset_ns`
 * from T: that of its last point at or before it.  False when the address
 * has no point yet (or none at all). */
bool sigtrace_at(const struct sigtrace *t, const struct sockaddr_storage *addr, int64_t offset_ns,
		 double *dbm);

#endif
