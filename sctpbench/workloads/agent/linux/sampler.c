#include "sampler.h"

#include "common/addr.h"
#include "cc_info.h"
#include "common/clock.h"
#include "path_state.h"
#include "sockopts.h"

#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

void sampler_init(struct sampler *s, int64_t interval_ms)
{
	s->interval_ns = interval_ms * NS_PER_MS;
	s->next_ns = INT64_MAX;
	s->policy_on = false;
	s->peers_known = false;
	cc_reader_init(&s->cc);
}

void sampler_peers_changed(struct sampler *s)
{
	s->peers_known = false;
}

/* false when the association is gone. */
static bool read_peers(struct sampler *s, int fd, sctp_assoc_t assoc)
{
	struct sockaddr *packed = NULL;
	int n;

	if (s->peers_known)
		return true;
	n = sctp_getpaddrs(fd, assoc, &packed);
	if (n < 0)
		return false;
	/* libsctp allocates even for zero addresses; any n >= 0 owns memory. */
	addr_unpack(packed, n, &s->peers);
	sctp_freepaddrs(packed);
	s->peers_known = true;
	return true;
}

void sampler_close(struct sampler *s)
{
	cc_reader_close(&s->cc);
}

void sampler_use_policy(struct sampler *s, const struct policy_params *p,
			const struct sigtrace *trace)
{
	if (p->kind == POLICY_STATIC)
		return;
	policy_runner_init(&s->policy, p);
	policy_runner_use_trace(&s->policy, trace);
	s->policy_on = true;
}

void sampler_policy_start(struct sampler *s, int64_t t0)
{
	if (s->policy_on)
		policy_runner_start(&s->policy, t0);
}

const struct sockaddr_storage *sampler_send_to(const struct sampler *s)
{
	return s->policy_on ? policy_runner_send_to(&s->policy) : NULL;
}

void sampler_start(struct sampler *s, int64_t now)
{
	if (s->interval_ns > 0)
		s->next_ns = now;
}

void sampler_stop(struct sampler *s)
{
	s->next_ns = INT64_MAX;
}

int64_t sampler_deadline(const struct sampler *s)
{
	return s->next_ns;
}

/* Returns true and fills *out when the kernel described the path. */
static bool sample_path(int fd, sctp_assoc_t assoc, const struct sockaddr_storage *addr,
			const struct sockaddr_storage *primary, bool have_primary,
			struct records *r, int64_t now, struct policy_path_info *out)
{
	struct sctp_paddrinfo pi;
	socklen_t len = sizeof(pi);
	int32_t state;
	uint32_t cwnd, srtt, rto, mtu;

	memset(&pi, 0, sizeof(pi));
	pi.spinfo_assoc_id = assoc;
	/* Packed struct: no pointer to the embedded address is ever formed. */
	memcpy((unsigned char *)&pi + offsetof(struct sctp_paddrinfo, spinfo_address),
	       addr, sizeof(*addr));
	/* Fails for a path that vanished since sctp_getpaddrs(), and with
	 * EACCES for a PF path when net.sctp.pf_expose hides PF; neither has
	 * numbers to record, so the path is left out of this round. */
	if (getsockopt(fd, IPPROTO_SCTP, SCTP_GET_PEER_ADDR_INFO, &pi, &len) != 0)
		return false;
	state = pi.spinfo_state;
	cwnd = pi.spinfo_cwnd;
	srtt = pi.spinfo_srtt;
	rto = pi.spinfo_rto;
	mtu = pi.spinfo_mtu;
	records_path(r, now, addr, path_state_name(state), cwnd, srtt, rto, mtu,
		     have_primary && addr_same_host(addr, primary));
	out->addr = *addr;
	out->state = state;
	out->cwnd = cwnd;
	out->srtt_raw = srtt;
	out->rto_ms = rto;
	return true;
}

/* pr: the policy to run on this round's paths, or NULL. */
static void round_with(struct sampler *s, int fd, sctp_assoc_t assoc, struct records *r, int64_t now,
		       struct policy_runner *pr)
{
	struct policy_path_info info[ADDR_LIST_MAX];
	size_t n_info = 0;
	const struct addr_list *peers = &s->peers;
	struct sctp_status st;
	struct sockaddr_storage primary;
	bool have_primary = false;
	struct cc_info cc;
	bool have_cc;

	memset(&primary, 0, sizeof(primary));
	if (!read_peers(s, fd, assoc))
		return; /* association gone: nothing to sample */

	/* The primary path comes with its congestion state (sock_diag), so the
	 * paths' primary flag and the cc record name the same path; without
	 * sock_diag SCTP_STATUS names it, a system call more. */
	have_cc = cc_reader_read(&s->cc, fd, &cc);
	if (have_cc) {
		primary = cc.primary;
		have_primary = true;
	} else if (sockopts_status(fd, assoc, &st) == 0) {
		memcpy(&primary,
		       (const unsigned char *)&st + offsetof(struct sctp_status, sstat_primary) +
			       offsetof(struct sctp_paddrinfo, spinfo_address),
		       sizeof(primary));
		have_primary = true;
	}
	for (size_t i = 0; i < peers->n; i++)
		if (sample_path(fd, assoc, &peers->a[i], &primary, have_primary, r, now, &info[n_info]))
			n_info++;
	if (have_cc)
		records_cc(r, now, &cc.primary, cc.cwnd, cc.ssthresh, cc.flight_size,
			   cc.partial_bytes_acked);
	if (pr != NULL)
		policy_runner_round(pr, fd, assoc, r, info, n_info, &primary, have_primary);
}

void sampler_round(struct sampler *s, int fd, sctp_assoc_t assoc, struct records *r)
{
	round_with(s, fd, assoc, r, now_ns(), NULL);
}

bool sampler_poll(struct sampler *s, int fd, sctp_assoc_t assoc,
		  struct records *r, int64_t now)
{
	if (s->interval_ns <= 0 || now < s->next_ns)
		return false;
	round_with(s, fd, assoc, r, now, s->policy_on ? &s->policy : NULL);
	s->next_ns += s->interval_ns;
	if (s->next_ns <= now)
		s->next_ns = now + s->interval_ns;
	return true;
}
