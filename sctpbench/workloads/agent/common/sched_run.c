#include "sched_run.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

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

void sched_runner_unknown(struct sched_runner *sr, size_t i)
{
	memset(&sr->paths[i], 0, sizeof(sr->paths[i]));
	sr->state[i] = "UNKNOWN";
}

const struct sockaddr_storage *sched_runner_decide(struct sched_runner *sr, int64_t now, unsigned stream,
						   bool unordered, uint64_t size)
{
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
			     x->known ? sr->state[i] : "UNKNOWN");
		if (x->known)
			len = append(line, len, sizeof(line), ",%.1f,%" PRIu32 ",%.0f,%.1f,%.1f", c->srtt_ms[i],
				     x->cwnd, c->queued_bytes[i], c->edt_ms[i], c->eff_ms[i]);
		else
			len = append(line, len, sizeof(line), ",-,-,-,-,-");
	}
	records_sched(r, sr->chosen_at, line);
}
