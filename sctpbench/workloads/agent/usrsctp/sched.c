#include "sched.h"

#include "common/diag.h"
#include "paths.h"

#include <inttypes.h>

/* usrsctp.h's SCTP_SS_FIRST_COME, stack.c's --stream-scheduler index. */
#define SS_FIRST_COME 5

int usched_prepare(const struct sched_params *sp, struct ustack_params *p)
{
	if (sp->kind == SCHED_PRIMARY)
		return 0;
	if (p->has_cmt && p->cmt != 0) {
		diag("--scheduler %s with --cmt %" PRIu32 ": usrsctp's CMT already chooses each chunk's path",
		     sp->text, p->cmt);
		return -1;
	}
	if (sp->hz_given) {
		diag("--scheduler %s: hz has no meaning on usrsctp (it reports SRTT in ms)", sp->text);
		return -1;
	}
	if (p->has_ss && p->ss != SS_FIRST_COME) {
		diag("--scheduler %s goes with --stream-scheduler first-come only: usrsctp's others "
		     "spin when no stream's next message is for the path being filled", sp->text);
		return -1;
	}
	p->has_ss = true;
	p->ss = SS_FIRST_COME;
	return 0;
}

const struct sockaddr_storage *usched_choose(struct sched_runner *sr, struct ustack_sock *s, int64_t now,
					     unsigned stream, bool unordered, uint64_t size)
{
	for (size_t i = 0; i < sr->st.n_paths; i++) {
		struct upath u;
		struct sched_path *x = &sr->paths[i];

		sched_runner_unknown(sr, i);
		if (upaths_describe(s, &sr->peers->a[i], &u) != 0)
			continue;
		sr->state[i] = u.state;
		x->known = true;
		x->active = u.active;
		x->srtt_ms = u.srtt_ms;
		x->rto_ms = u.rto_ms;
		x->cwnd = u.cwnd;
	}
	return sched_runner_decide(sr, now, stream, unordered, size);
}
