#include "sched.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS_SCHED 1e6

static const char *const kind_names[] = {
	[SCHED_PRIMARY] = "primary",
	[SCHED_ROUND_ROBIN] = "round-robin",
	[SCHED_STATIC_STREAM] = "static-stream",
	[SCHED_DYNAMIC_PATH] = "dynamic-path",
	[SCHED_STREAM_AWARE] = "stream-aware",
};

const char *sched_kind_name(enum sched_kind kind)
{
	return kind_names[kind];
}

static int fail(char *err, size_t errlen, const char *fmt, const char *what)
{
	if (err != NULL)
		snprintf(err, errlen, fmt, what);
	return -1;
}

static bool parse_number(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* Which keys a scheduler takes: only the estimating ones read SRTT. */
static bool key_allowed(enum sched_kind kind, const char *key)
{
	if (strcmp(key, "hz") == 0)
		return kind == SCHED_DYNAMIC_PATH || kind == SCHED_STREAM_AWARE;
	if (strcmp(key, "margin") == 0)
		return kind == SCHED_STREAM_AWARE;
	return false;
}

static int parse_pair(struct sched_params *p, char *item, char *err, size_t errlen)
{
	char *eq = strchr(item, '=');
	double v;

	if (eq == NULL || eq == item || eq[1] == '\0')
		return fail(err, errlen, "bad parameter '%.60s' (KEY=VALUE)", item);
	*eq = '\0';
	if (!key_allowed(p->kind, item))
		return fail(err, errlen, "unknown parameter '%.40s' for this scheduler", item);
	if (strcmp(item, "hz") == 0) {
		if (!parse_number(eq + 1, 1, 10000, &v) || v != floor(v))
			return fail(err, errlen, "bad hz '%.40s' (1-10000)", eq + 1);
		p->hz = (unsigned)v;
		p->hz_given = true;
	} else {
		if (!parse_number(eq + 1, 0, 60000, &v))
			return fail(err, errlen, "bad margin '%.40s' (0-60000 ms)", eq + 1);
		p->margin_ms = v;
	}
	return 0;
}

int sched_parse(const char *text, struct sched_params *p, char *err, size_t errlen)
{
	char buf[SCHED_TEXT_MAX];
	char *colon, *item, *save = NULL;
	size_t len = strlen(text);
	int kind = -1;

	memset(p, 0, sizeof(*p));
	p->hz = 1000;
	if (len >= sizeof(buf))
		return fail(err, errlen, "%s", "too long");
	memcpy(buf, text, len + 1);
	colon = strchr(buf, ':');
	if (colon != NULL)
		*colon = '\0';
	for (size_t k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
		if (strcmp(buf, kind_names[k]) == 0)
			kind = (int)k;
	if (kind < 0)
		return fail(err, errlen, "unknown scheduler '%.40s' (primary, round-robin, "
			    "static-stream, dynamic-path, stream-aware)", buf);
	p->kind = (enum sched_kind)kind;
	if (colon != NULL) {
		if (colon[1] == '\0')
			return fail(err, errlen, "%s", "empty parameter list after ':'");
		for (item = strtok_r(colon + 1, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save))
			if (parse_pair(p, item, err, errlen) != 0)
				return -1;
	}
	memcpy(p->text, text, len + 1);
	return 0;
}

int sched_init(struct sched_state *s, const struct sched_params *p, size_t n_paths)
{
	memset(s, 0, sizeof(*s));
	s->p = *p;
	s->n_paths = n_paths < SCHED_MAX_PATHS ? n_paths : SCHED_MAX_PATHS;
	s->last = -1;
	s->streams = malloc(SCHED_STREAMS * sizeof(*s->streams));
	if (s->streams == NULL)
		return -1;
	for (size_t i = 0; i < SCHED_STREAMS; i++) {
		s->streams[i].path = -1;
		s->streams[i].deliver_ns = INT64_MIN;
	}
	return 0;
}

void sched_free(struct sched_state *s)
{
	free(s->streams);
	s->streams = NULL;
}

static bool candidate(const struct sched_path *x)
{
	return x->known && x->active;
}

/* The SRTT estimate in ms: the measured one, else the RTO (a path not yet
 * measured is taken to be as slow as its timer says). */
static double srtt_estimate(const struct sched_path *x)
{
	return x->srtt_ms > 0 ? x->srtt_ms : x->rto_ms;
}

/* Bytes per ns; a path with no window or no delay estimate gets a tiny
 * rate, so it loses against any measured one without dividing by 0. */
static double rate_of(const struct sched_path *x)
{
	double srtt_ns = srtt_estimate(x) * NS_PER_MS_SCHED;

	if (srtt_ns <= 0 || x->cwnd == 0)
		return 1e-9;
	return x->cwnd / srtt_ns;
}

/* The path's queue start (ns, absolute) and this message's EDT (ms from now). */
static double edt_ms(const struct sched_state *s, int i, int64_t now, const struct sched_path *x,
		     uint64_t size, double *queued)
{
	double rate = rate_of(x);
	int64_t start = s->busy_ns[i] > now ? s->busy_ns[i] : now;

	*queued = (double)(start - now) * rate;
	return ((double)(start - now) + (double)size / rate) / NS_PER_MS_SCHED + srtt_estimate(x) / 2;
}

/* The first candidate at or after `from`, cyclically; -1 if none. */
static int next_candidate(const struct sched_state *s, const struct sched_path *paths, int from)
{
	for (size_t k = 0; k < s->n_paths; k++) {
		int i = (int)(((size_t)from + k) % s->n_paths);

		if (candidate(&paths[i]))
			return i;
	}
	return -1;
}

/* The candidate with the least value; ties go to `prefer`, then the lowest index. */
static int least(const struct sched_state *s, const struct sched_path *paths, const double *v,
		 int prefer, double margin)
{
	int best = -1;

	for (size_t i = 0; i < s->n_paths; i++)
		if (candidate(&paths[i]) && (best < 0 || v[i] < v[best]))
			best = (int)i;
	if (best >= 0 && prefer >= 0 && prefer != best && candidate(&paths[prefer]) &&
	    v[prefer] <= v[best] + margin)
		return prefer;
	return best;
}

/* Among the paths that deliver the message in order about as early as the
 * best (within `margin`): the stream's own path if it is one (no
 * reordering); else the one with the latest plain EDT, i.e. the slowest
 * path that still makes it, since the message would only wait for its
 * predecessor on a faster one, whose queue is better left to other
 * streams. */
static void choose_stream_aware(const struct sched_state *s, int64_t now, const struct sched_path *paths,
				unsigned stream, bool unordered, struct sched_choice *c)
{
	const struct sched_stream *st = &s->streams[stream % SCHED_STREAMS];
	double wait_ms = 0;
	int own = st->path, best = -1, pick = -1;

	if (!unordered && st->deliver_ns > now)
		wait_ms = (double)(st->deliver_ns - now) / NS_PER_MS_SCHED;
	for (size_t i = 0; i < s->n_paths; i++)
		c->eff_ms[i] = c->edt_ms[i] > wait_ms ? c->edt_ms[i] : wait_ms;
	best = least(s, paths, c->eff_ms, -1, 0);
	if (best < 0)
		return;
	for (size_t i = 0; i < s->n_paths; i++) {
		if (!candidate(&paths[i]) || c->eff_ms[i] > c->eff_ms[best] + s->p.margin_ms)
			continue;
		if ((int)i == own) {
			pick = own;
			break;
		}
		if (pick < 0 || c->edt_ms[i] > c->edt_ms[pick])
			pick = (int)i;
	}
	c->path = pick;
	if (pick == own)
		snprintf(c->reason, sizeof(c->reason), "stream path eff %.1f best %.1f wait %.1f",
			 c->eff_ms[pick], c->eff_ms[best], wait_ms);
	else if (own >= 0)
		snprintf(c->reason, sizeof(c->reason), "move from %d eff %.1f<%.1f wait %.1f", own,
			 c->eff_ms[pick], candidate(&paths[own]) ? c->eff_ms[own] : -1.0, wait_ms);
	else
		snprintf(c->reason, sizeof(c->reason), "new stream eff %.1f wait %.1f", c->eff_ms[pick], wait_ms);
}

void sched_choose(const struct sched_state *s, int64_t now, const struct sched_path *paths,
		  unsigned stream, bool unordered, uint64_t size, struct sched_choice *c)
{
	int mapped;

	memset(c, 0, sizeof(*c));
	c->path = -1;
	for (size_t i = 0; i < s->n_paths; i++) {
		c->srtt_ms[i] = srtt_estimate(&paths[i]);
		c->edt_ms[i] = edt_ms(s, (int)i, now, &paths[i], size, &c->queued_bytes[i]);
		c->eff_ms[i] = c->edt_ms[i];
	}
	switch (s->p.kind) {
	case SCHED_PRIMARY:
		break;
	case SCHED_ROUND_ROBIN:
		c->path = next_candidate(s, paths, s->last + 1);
		if (c->path >= 0)
			snprintf(c->reason, sizeof(c->reason), "after %d", s->last);
		break;
	case SCHED_STATIC_STREAM:
		mapped = s->n_paths > 0 ? (int)(stream % s->n_paths) : 0;
		c->path = next_candidate(s, paths, mapped);
		if (c->path >= 0)
			snprintf(c->reason, sizeof(c->reason), c->path == mapped ? "stream %u maps to %d"
				 : "stream %u maps to %d, not active", stream, mapped);
		break;
	case SCHED_DYNAMIC_PATH:
		c->path = least(s, paths, c->edt_ms, -1, 0);
		if (c->path >= 0)
			snprintf(c->reason, sizeof(c->reason), "least edt %.1f", c->edt_ms[c->path]);
		break;
	case SCHED_STREAM_AWARE:
		choose_stream_aware(s, now, paths, stream, unordered, c);
		break;
	}
	if (c->path < 0 && s->p.kind != SCHED_PRIMARY)
		snprintf(c->reason, sizeof(c->reason), "no active path");
}

void sched_commit(struct sched_state *s, int64_t now, const struct sched_path *paths,
		  unsigned stream, bool unordered, uint64_t size, const struct sched_choice *c)
{
	struct sched_stream *st = &s->streams[stream % SCHED_STREAMS];
	int64_t start, deliver;
	int p = c->path;

	if (p < 0 || (size_t)p >= s->n_paths)
		return;
	start = s->busy_ns[p] > now ? s->busy_ns[p] : now;
	s->busy_ns[p] = start + (int64_t)((double)size / rate_of(&paths[p]));
	s->last = p;
	st->path = p;
	deliver = now + (int64_t)(c->edt_ms[p] * NS_PER_MS_SCHED);
	if (!unordered && deliver > st->deliver_ns)
		st->deliver_ns = deliver;
}
