#include "sched_run.h"

#include "path_state.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

int sched_runner_init(struct sched_runner *sr, const struct sched_params *p,
		      const struct addr_list *peers)
{
	memset(sr, 0, sizeof(*sr));
	sr->peers = peers;
	return sched_init(&sr->st, p, peers->n);
}

void sched_runner_free(struct sched_runner *sr)
{
	sched_free(&sr->st);
}

/* One path as the stack describes it now; unknown if it will not say. */
static void describe(struct sched_runner *sr, int fd, sctp_assoc_t assoc, size_t i)
{
	struct sctp_paddrinfo pi;
	socklen_t len = sizeof(pi);
	struct sched_path *x = &sr->paths[i];

	memset(x, 0, sizeof(*x));
	memset(&pi, 0, sizeof(pi));
	pi.spinfo_assoc_id = assoc;
	/* Packed struct: no pointer to the embedded address is ever formed. */
	memcpy((unsigned char *)&pi + offsetof(struct sctp_paddrinfo, spinfo_address),
	       &sr->peers->a[i], sizeof(sr->peers->a[i]));
	sr->state[i] = -1;
	if (getsockopt(fd, IPPROTO_SCTP, SCTP_GET_PEER_ADDR_INFO, &pi, &len) != 0)
		return;
	sr->state[i] = pi.spinfo_state;
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
	sched_choose(&sr->st, now, sr->paths, stream, unordered, size, &sr->choice);
	sr->chosen_at = now;
	return sr->choice.path >= 0 ? &sr->peers->a[sr->choice.path] : NULL;
}

static size_t append(char *line, size_t len, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t append(char *line, size_t len, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len >= cap)
		return len;
	va_start(ap, fmt);
	n = vsnprintf(line + len, cap - len, fmt, ap);
	va_end(ap);
	return n < 0 ? len : len + (size_t)n;
}

void sched_runner_sent(struct sched_runner *sr, struct records *r, uint64_t seq, unsigned stream,
		       bool unordered, uint64_t size)
{
	const struct sched_choice *c = &sr->choice;
	char line[2048], a[ADDR_STR_MAX];
	size_t len = 0;

	sched_commit(&sr->st, sr->chosen_at, sr->paths, stream, unordered, size, c);
	len = append(line, len, sizeof(line), "%" PRIu64 "\t%u\t%" PRIu64 "\t%c\t%s\t%s\t%s", seq, stream,
		     size, unordered ? 'u' : 'o', sched_kind_name(sr->st.p.kind),
		     c->path >= 0 ? addr_format(&sr->peers->a[c->path], a) : "-",
		     c->reason[0] != '\0' ? c->reason : "-");
	for (size_t i = 0; i < sr->st.n_paths; i++) {
		const struct sched_path *x = &sr->paths[i];

		len = append(line, len, sizeof(line), "\t%s,%s", addr_format(&sr->peers->a[i], a),
			     x->known ? path_state_name(sr->state[i]) : "UNKNOWN");
		if (x->known)
			len = append(line, len, sizeof(line), ",%.1f,%" PRIu32 ",%.0f,%.1f,%.1f", c->srtt_ms[i],
				     x->cwnd, c->queued_bytes[i], c->edt_ms[i], c->eff_ms[i]);
		else
			len = append(line, len, sizeof(line), ",-,-,-,-,-");
	}
	records_sched(r, sr->chosen_at, line);
}
