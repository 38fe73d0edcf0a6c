#include "sched.h"

#include "path_state.h"

#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

/* One path as the kernel describes it now; unknown if it will not say. */
static void describe(struct sched_runner *sr, int fd, sctp_assoc_t assoc, size_t i)
{
	struct sctp_paddrinfo pi;
	socklen_t len = sizeof(pi);
	struct sched_path *x = &sr->paths[i];

	memset(&pi, 0, sizeof(pi));
	pi.spinfo_assoc_id = assoc;
	/* Packed struct: no pointer to the embedded address is ever formed. */
	memcpy((unsigned char *)&pi + offsetof(struct sctp_paddrinfo, spinfo_address),
	       &sr->peers->a[i], sizeof(sr->peers->a[i]));
	sched_runner_unknown(sr, i);
	if (getsockopt(fd, IPPROTO_SCTP, SCTP_GET_PEER_ADDR_INFO, &pi, &len) != 0)
		return;
	sr->state[i] = path_state_name(pi.spinfo_state);
	x->known = true;
	x->active = pi.spinfo_state == SCTP_ACTIVE;
	/* spinfo_srtt is in jiffies on Linux 6.1 (see the policies' hz). */
	x->srtt_ms = (double)pi.spinfo_srtt * 1000.0 / sr->st.p.hz;
	x->rto_ms = pi.spinfo_rto;
	x->cwnd = pi.spinfo_cwnd;
}

const struct sockaddr_storage *sched_runner_choose(struct sched_runner *sr, int fd, sctp_assoc_t assoc,
						   int64_t now, unsigned stream, bool unordered, uint64_t size)
{
	for (size_t i = 0; i < sr->st.n_paths; i++)
		describe(sr, fd, assoc, i);
	return sched_runner_decide(sr, now, stream, unordered, size);
}
