#include "sampler.h"

#include "common/clock.h"
#include "paths.h"

void usampler_init(struct usampler *u, int64_t interval_ms)
{
	u->interval_ns = interval_ms * NS_PER_MS;
	u->next_ns = INT64_MAX;
}

void usampler_start(struct usampler *u, int64_t now)
{
	if (u->interval_ns > 0)
		u->next_ns = now;
}

int64_t usampler_deadline(const struct usampler *u)
{
	return u->next_ns;
}

void usampler_round(struct ustack_sock *s, struct records *r)
{
	struct addr_list peers;
	struct sockaddr_storage primary;
	bool have_primary = upaths_primary(s, &primary) == 0;

	/* Re-read every round, as the kernel agent does: the peer's
	 * addresses can change. */
	if (upaths_peers(s, &peers) != 0)
		return; /* association gone: nothing to sample */
	for (size_t i = 0; i < peers.n; i++) {
		struct upath u;

		if (upaths_describe(s, &peers.a[i], &u) != 0)
			continue;
		records_path(r, now_ns(), &peers.a[i], u.state, u.cwnd, u.srtt_ms, u.rto_ms, u.mtu,
			     have_primary && addr_same_host(&peers.a[i], &primary));
	}
}

void usampler_poll(struct usampler *u, struct ustack_sock *s, struct records *r, int64_t now)
{
	if (u->interval_ns <= 0 || now < u->next_ns)
		return;
	usampler_round(s, r);
	u->next_ns += u->interval_ns;
	if (u->next_ns <= now)
		u->next_ns = now + u->interval_ns;
}
