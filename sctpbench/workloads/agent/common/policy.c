#include "policy.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS_POLICY INT64_C(1000000)
#define GUARD_MS_MAX (INT64_C(3600) * 1000)

static const char *const kind_names[] = {
	[POLICY_STATIC] = "static",
	[POLICY_DELAY_CENTRIC] = "delay-centric",
	[POLICY_PREDICTIVE] = "predictive",
	[POLICY_RTT_RATIO] = "rtt-ratio",
	[POLICY_SIGNAL] = "signal",
};

const char *policy_kind_name(enum policy_kind kind)
{
	return kind_names[kind];
}

const char *policy_action_name(enum policy_action a)
{
	switch (a) {
	case POLICY_SWITCH: return "switch";
	case POLICY_GUARD: return "guard";
	case POLICY_CANCEL: return "cancel";
	case POLICY_PREPARE: return "prepare";
	default: return "stay";
	}
}

static void defaults(struct policy_params *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = POLICY_STATIC;
	strcpy(p->text, "static");
	p->hysteresis_ms = 10;
	p->short_alpha = 0.667;
	p->long_alpha = 0.154;
	p->threshold_ms = 150;
	p->alpha_conservative = 9;
	p->alpha_aggressive = 3;
	p->beta_ms = 1000;
	p->switch_dbm = -80;
	p->hysteresis_db = 5;
	p->guard_hb_ms = 20;
	p->hz = 1000;
}

static bool parse_double(const char *s, double lo, double hi, double *out)
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

static bool parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return false;
	*out = (uint64_t)v;
	return true;
}

/* MS or LO-HI, in milliseconds. */
static bool parse_guard(char *s, int64_t *lo, int64_t *hi)
{
	char *dash = strchr(s, '-');
	uint64_t a, b;

	if (dash == NULL) {
		if (!parse_u64(s, 0, GUARD_MS_MAX, &a))
			return false;
		*lo = *hi = (int64_t)a;
		return true;
	}
	*dash = '\0';
	if (!parse_u64(s, 0, GUARD_MS_MAX, &a) || !parse_u64(dash + 1, 0, GUARD_MS_MAX, &b) || a > b)
		return false;
	*lo = (int64_t)a;
	*hi = (int64_t)b;
	return true;
}

static int fail(char *err, size_t errlen, const char *fmt, const char *what)
{
	snprintf(err, errlen, fmt, what);
	return -1;
}

static bool allowed(enum policy_kind kind, const char *key)
{
	static const char *const common[] = { "guard", "guard_hb", "seed", "hz", NULL };
	static const char *const delay[] = { "hysteresis", NULL };
	static const char *const pred[] = { "short", "long", "threshold", "form", NULL };
	static const char *const ratio[] = { "alpha_c", "alpha_a", "beta", NULL };
	static const char *const signal[] = { "switch", "hysteresis", "prepare", NULL };
	const char *const *own = kind == POLICY_DELAY_CENTRIC ? delay
				 : kind == POLICY_PREDICTIVE ? pred
				 : kind == POLICY_RTT_RATIO ? ratio
				 : kind == POLICY_SIGNAL ? signal : NULL;

	if (kind == POLICY_STATIC)
		return false;
	for (size_t i = 0; common[i] != NULL; i++)
		if (strcmp(common[i], key) == 0)
			return true;
	for (size_t i = 0; own != NULL && own[i] != NULL; i++)
		if (strcmp(own[i], key) == 0)
			return true;
	return false;
}

static int parse_kv(struct policy_params *p, char *key, char *val, char *err, size_t errlen)
{
	uint64_t u;

	if (!allowed(p->kind, key))
		return fail(err, errlen, "unknown parameter '%s' for this policy", key);
	if (strcmp(key, "hysteresis") == 0 && p->kind == POLICY_SIGNAL) {
		if (!parse_double(val, 0, 250, &p->hysteresis_db))
			return fail(err, errlen, "bad hysteresis '%s' (dB, 0 to 250)", val);
	} else if (strcmp(key, "switch") == 0) {
		if (!parse_double(val, -200, 50, &p->switch_dbm))
			return fail(err, errlen, "bad switch '%s' (dBm, -200 to 50)", val);
	} else if (strcmp(key, "prepare") == 0) {
		if (!parse_double(val, -200, 50, &p->prepare_dbm))
			return fail(err, errlen, "bad prepare '%s' (dBm, -200 to 50)", val);
		p->have_prepare = true;
	} else if (strcmp(key, "hysteresis") == 0) {
		if (!parse_double(val, 0, 1e6, &p->hysteresis_ms))
			return fail(err, errlen, "bad hysteresis '%s' (ms, >= 0)", val);
	} else if (strcmp(key, "short") == 0) {
		if (!parse_double(val, 1e-6, 1, &p->short_alpha))
			return fail(err, errlen, "bad short '%s' (EMA weight in (0, 1])", val);
	} else if (strcmp(key, "long") == 0) {
		if (!parse_double(val, 1e-6, 1, &p->long_alpha))
			return fail(err, errlen, "bad long '%s' (EMA weight in (0, 1])", val);
	} else if (strcmp(key, "threshold") == 0) {
		if (!parse_double(val, 0, 1e6, &p->threshold_ms))
			return fail(err, errlen, "bad threshold '%s' (ms, >= 0)", val);
	} else if (strcmp(key, "form") == 0) {
		if (strcmp(val, "original") == 0)
			p->original = true;
		else if (strcmp(val, "modified") == 0)
			p->original = false;
		else
			return fail(err, errlen, "bad form '%s' (original or modified)", val);
	} else if (strcmp(key, "alpha_c") == 0) {
		if (!parse_double(val, 1, 1e6, &p->alpha_conservative))
			return fail(err, errlen, "bad alpha_c '%s' (>= 1)", val);
	} else if (strcmp(key, "alpha_a") == 0) {
		if (!parse_double(val, 1, 1e6, &p->alpha_aggressive))
			return fail(err, errlen, "bad alpha_a '%s' (>= 1)", val);
	} else if (strcmp(key, "beta") == 0) {
		if (!parse_double(val, 0, 1e9, &p->beta_ms))
			return fail(err, errlen, "bad beta '%s' (ms, >= 0)", val);
	} else if (strcmp(key, "guard") == 0) {
		if (!parse_guard(val, &p->guard_lo_ms, &p->guard_hi_ms))
			return fail(err, errlen, "bad guard '%s' (MS or LO-HI, ms)", val);
	} else if (strcmp(key, "guard_hb") == 0) {
		if (!parse_u64(val, 0, 3600000, &u))
			return fail(err, errlen, "bad guard_hb '%s' (ms, 0 = leave alone)", val);
		p->guard_hb_ms = (uint32_t)u;
	} else if (strcmp(key, "seed") == 0) {
		if (!parse_u64(val, 0, UINT64_MAX, &p->seed))
			return fail(err, errlen, "bad seed '%s' (unsigned 64-bit)", val);
		p->have_seed = true;
	} else if (strcmp(key, "hz") == 0) {
		if (!parse_u64(val, 1, 100000, &u))
			return fail(err, errlen, "bad hz '%s' (kernel HZ)", val);
		p->hz = (unsigned)u;
	}
	return 0;
}

int policy_parse(const char *text, struct policy_params *p, char *err, size_t errlen)
{
	char buf[POLICY_TEXT_MAX];
	char *colon, *save = NULL, *item;

	defaults(p);
	if (strlen(text) >= sizeof(buf))
		return fail(err, errlen, "%s", "policy text too long");
	strcpy(buf, text);
	colon = strchr(buf, ':');
	if (colon != NULL)
		*colon = '\0';
	p->kind = POLICY_STATIC;
	if (strcmp(buf, "static") == 0)
		p->kind = POLICY_STATIC;
	else if (strcmp(buf, "delay-centric") == 0)
		p->kind = POLICY_DELAY_CENTRIC;
	else if (strcmp(buf, "predictive") == 0)
		p->kind = POLICY_PREDICTIVE;
	else if (strcmp(buf, "rtt-ratio") == 0)
		p->kind = POLICY_RTT_RATIO;
	else if (strcmp(buf, "signal") == 0)
		p->kind = POLICY_SIGNAL;
	else
		return fail(err, errlen,
			    "unknown policy '%s' (static, delay-centric, predictive, rtt-ratio or signal)", buf);
	if (colon != NULL) {
		for (item = strtok_r(colon + 1, ",", &save); item != NULL;
		     item = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(item, '=');

			if (eq == NULL || eq == item || eq[1] == '\0')
				return fail(err, errlen, "bad parameter '%s' (KEY=VALUE)", item);
			*eq = '\0';
			if (parse_kv(p, item, eq + 1, err, errlen) != 0)
				return -1;
		}
	}
	if (p->kind == POLICY_PREDICTIVE && p->short_alpha <= p->long_alpha)
		return fail(err, errlen, "%s", "short must weigh more than long (short > long)");
	/* alpha_c below alpha_a is allowed: the seed proposes alpha_c > alpha_a but runs the
	 * inverted pair (3, 9) as its worst case (seed 002, Fig. 4). */
	if (p->kind == POLICY_SIGNAL && p->have_prepare && !(p->prepare_dbm > p->switch_dbm))
		return fail(err, errlen, "%s", "prepare must be above switch (it comes first)");
	strcpy(p->text, text);
	return 0;
}

/* splitmix64: enough for spreading guard times, and seeded. */
static uint64_t next_random(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

void policy_init(struct policy_state *s, const struct policy_params *p)
{
	memset(s, 0, sizeof(*s));
	s->p = *p;
	s->guard_candidate = -1;
	s->rng = p->seed;
	s->prepared = -1;
}

int policy_prepared(const struct policy_state *s)
{
	return s->prepared;
}

static const struct policy_sample *find(const struct policy_sample *samples, size_t n, int slot)
{
	for (size_t i = 0; i < n; i++)
		if (samples[i].slot == slot)
			return &samples[i];
	return NULL;
}

static bool usable(const struct policy_sample *x)
{
	return x->active && x->srtt_ms > 0;
}

/* The rule alone (no guard): the slot to switch to, or -1.  Writes why. */
static int delay_centric(const struct policy_state *s, const struct policy_sample *samples,
			 size_t n, const struct policy_sample *prim, char *why, size_t wl)
{
	const struct policy_sample *best = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct policy_sample *x = &samples[i];

		if (x == prim || !usable(x))
			continue;
		if (best == NULL || x->srtt_ms < best->srtt_ms)
			best = x;
	}
	if (best == NULL)
		return -1;
	if (prim == NULL || !prim->active) {
		snprintf(why, wl, "primary-inactive");
		return best->slot;
	}
	if (prim->srtt_ms - best->srtt_ms > s->p.hysteresis_ms) {
		snprintf(why, wl, "srtt %.1f>%.1f+%g", prim->srtt_ms, best->srtt_ms,
			 s->p.hysteresis_ms);
		return best->slot;
	}
	return -1;
}

static int predictive(const struct policy_state *s, const struct policy_sample *samples,
		      size_t n, const struct policy_sample *prim, char *why, size_t wl)
{
	const struct policy_path *P, *best = NULL;
	int best_slot = -1;

	if (prim == NULL || !prim->active) {
		/* A dead primary has no trend worth reading: any active path. */
		for (size_t i = 0; i < n; i++) {
			const struct policy_path *a = &s->path[samples[i].slot];

			if (&samples[i] == prim || !usable(&samples[i]))
				continue;
			if (best == NULL || a->ema_short < best->ema_short) {
				best = a;
				best_slot = samples[i].slot;
			}
		}
		if (best_slot >= 0)
			snprintf(why, wl, "primary-inactive");
		return best_slot;
	}
	P = &s->path[prim->slot];
	/* (ii) the primary's short average above the threshold */
	if (P->ema_short <= s->p.threshold_ms)
		return -1;
	/* (i) original: the primary's delay is rising */
	if (s->p.original && !(P->ema_short > P->ema_long))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct policy_path *a = &s->path[samples[i].slot];

		if (&samples[i] == prim || !usable(&samples[i]))
			continue;
		/* (iii) the alternate's short average below the primary's */
		if (!(P->ema_short > a->ema_short))
			continue;
		/* (i) modified: the primary's trend above the alternate's */
		if (!s->p.original && !(P->ema_short - P->ema_long > a->ema_short - a->ema_long))
			continue;
		if (best == NULL || a->ema_short < best->ema_short) {
			best = a;
			best_slot = samples[i].slot;
		}
	}
	if (best_slot >= 0)
		snprintf(why, wl, "macd S=%.1f L=%.1f alt S=%.1f L=%.1f thr %g",
			 P->ema_short, P->ema_long, best->ema_short, best->ema_long,
			 s->p.threshold_ms);
	return best_slot;
}

static int rtt_ratio(const struct policy_state *s, const struct policy_sample *samples,
		     size_t n, const struct policy_sample *prim, char *why, size_t wl)
{
	const struct policy_sample *best = NULL;
	double best_alpha = 0;

	for (size_t i = 0; i < n; i++) {
		const struct policy_sample *x = &samples[i];
		double alpha;

		if (x == prim || !usable(x))
			continue;
		if (prim == NULL || !prim->active) {
			if (best == NULL || x->srtt_ms < best->srtt_ms)
				best = x;
			continue;
		}
		alpha = fabs(prim->srtt_ms - x->srtt_ms) < s->p.beta_ms ? s->p.alpha_conservative
									  : s->p.alpha_aggressive;
		if (prim->srtt_ms > alpha * x->srtt_ms && (best == NULL || x->srtt_ms < best->srtt_ms)) {
			best = x;
			best_alpha = alpha;
		}
	}
	if (best == NULL)
		return -1;
	if (prim == NULL || !prim->active)
		snprintf(why, wl, "primary-inactive");
	else
		snprintf(why, wl, "rtt %.1f>%g*%.1f %s", prim->srtt_ms, best_alpha, best->srtt_ms,
			 fabs(prim->srtt_ms - best->srtt_ms) < s->p.beta_ms ? "conservative"
									      : "aggressive");
	return best->slot;
}

static bool has_signal(const struct policy_sample *x)
{
	return x->active && x->has_signal;
}

/* The active path other than the primary with the strongest signal. */
static const struct policy_sample *strongest(const struct policy_sample *samples, size_t n,
					     const struct policy_sample *prim)
{
	const struct policy_sample *best = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct policy_sample *x = &samples[i];

		if (x == prim || !has_signal(x))
			continue;
		if (best == NULL || x->signal_dbm > best->signal_dbm)
			best = x;
	}
	return best;
}

/* Whether `alt` beats the primary by more than the hysteresis. */
static bool stronger(const struct policy_state *s, const struct policy_sample *alt,
		     const struct policy_sample *prim)
{
	return alt->signal_dbm - prim->signal_dbm > s->p.hysteresis_db;
}

static int signal_rule(const struct policy_state *s, const struct policy_sample *samples, size_t n,
		       const struct policy_sample *prim, char *why, size_t wl)
{
	const struct policy_sample *best = strongest(samples, n, prim);

	if (best == NULL)
		return -1;
	if (prim == NULL || !prim->active) {
		snprintf(why, wl, "primary-inactive");
		return best->slot;
	}
	if (!prim->has_signal || !(prim->signal_dbm < s->p.switch_dbm) || !stronger(s, best, prim))
		return -1;
	snprintf(why, wl, "signal %.1f<%g alt %.1f>%.1f+%g", prim->signal_dbm, s->p.switch_dbm,
		 best->signal_dbm, prim->signal_dbm, s->p.hysteresis_db);
	return best->slot;
}

/* signal with `prepare`, in a round where no switch is due: start sending
 * to the candidate once the primary is below `prepare` and the candidate
 * beats it by the hysteresis; stop when the primary is back above
 * prepare + hysteresis (no flapping at the threshold) or the target is no
 * longer an active path stronger than the primary. */
static void signal_prepare(struct policy_state *s, const struct policy_sample *samples, size_t n,
			   const struct policy_sample *prim, int current_primary,
			   struct policy_decision *d)
{
	const struct policy_sample *best = strongest(samples, n, prim);
	const struct policy_sample *target;
	bool usable_prim = prim != NULL && has_signal(prim);

	if (!s->p.have_prepare)
		return;
	if (usable_prim && best != NULL && prim->signal_dbm < s->p.prepare_dbm && stronger(s, best, prim)) {
		if (s->prepared == best->slot)
			return;
		s->prepared = best->slot;
		d->action = POLICY_PREPARE;
		d->to = best->slot;
		snprintf(d->reason, sizeof(d->reason), "signal %.1f<%g alt %.1f>%.1f+%g",
			 prim->signal_dbm, s->p.prepare_dbm, best->signal_dbm, prim->signal_dbm,
			 s->p.hysteresis_db);
		return;
	}
	if (s->prepared < 0)
		return;
	target = find(samples, n, s->prepared);
	if (s->prepared == current_primary) {
		snprintf(d->reason, sizeof(d->reason), "prepare ends: the target is the primary");
	} else if (target == NULL || !has_signal(target)) {
		snprintf(d->reason, sizeof(d->reason), "prepare ends: target not active");
	} else if (!usable_prim) {
		return; /* nothing to compare with: keep going as prepared */
	} else if (!(target->signal_dbm > prim->signal_dbm)) {
		snprintf(d->reason, sizeof(d->reason), "prepare ends: target %.1f<=%.1f",
			 target->signal_dbm, prim->signal_dbm);
	} else if (prim->signal_dbm >= s->p.prepare_dbm + s->p.hysteresis_db) {
		snprintf(d->reason, sizeof(d->reason), "prepare ends: signal %.1f>=%g+%g",
			 prim->signal_dbm, s->p.prepare_dbm, s->p.hysteresis_db);
	} else {
		return;
	}
	d->action = POLICY_CANCEL;
	d->to = s->prepared;
	s->prepared = -1;
}

static int rule(const struct policy_state *s, const struct policy_sample *samples, size_t n,
		const struct policy_sample *prim, char *why, size_t wl)
{
	switch (s->p.kind) {
	case POLICY_DELAY_CENTRIC: return delay_centric(s, samples, n, prim, why, wl);
	case POLICY_PREDICTIVE: return predictive(s, samples, n, prim, why, wl);
	case POLICY_RTT_RATIO: return rtt_ratio(s, samples, n, prim, why, wl);
	case POLICY_SIGNAL: return signal_rule(s, samples, n, prim, why, wl);
	default: return -1;
	}
}

static void update_averages(struct policy_state *s, const struct policy_sample *samples, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct policy_path *a = &s->path[samples[i].slot];
		double x = samples[i].srtt_ms;

		if (x <= 0)
			continue; /* not measured yet: nothing to average */
		if (!a->seen) {
			a->seen = true;
			a->ema_short = a->ema_long = x;
			continue;
		}
		a->ema_short += s->p.short_alpha * (x - a->ema_short);
		a->ema_long += s->p.long_alpha * (x - a->ema_long);
	}
}

static int64_t draw_guard_ns(struct policy_state *s)
{
	int64_t lo = s->p.guard_lo_ms, hi = s->p.guard_hi_ms, ms = lo;

	if (hi > lo)
		ms = lo + (int64_t)(next_random(&s->rng) % (uint64_t)(hi - lo + 1));
	return ms * NS_PER_MS_POLICY;
}

void policy_step(struct policy_state *s, int64_t now_ns, const struct policy_sample *in,
		 size_t n_in, int current_primary, struct policy_decision *d)
{
	struct policy_sample samples[POLICY_MAX_PATHS];
	const struct policy_sample *prim;
	size_t n = 0;
	int to;

	memset(d, 0, sizeof(*d));
	d->action = POLICY_STAY;
	d->to = -1;
	d->hb_slot = -1;
	for (size_t i = 0; i < n_in && n < POLICY_MAX_PATHS; i++)
		if (in[i].slot >= 0 && in[i].slot < POLICY_MAX_PATHS)
			samples[n++] = in[i];
	if (s->p.kind == POLICY_STATIC)
		return;
	update_averages(s, samples, n);
	prim = find(samples, n, current_primary);

	if (s->guarding) {
		if (now_ns < s->guard_end_ns)
			return; /* no handover while the guard runs */
		s->guarding = false;
		d->hb_slot = s->guard_candidate;
		d->hb_restore = s->p.guard_hb_ms > 0;
		if (!d->hb_restore)
			d->hb_slot = -1;
		to = rule(s, samples, n, prim, d->reason, sizeof(d->reason));
		if (to >= 0 && to != current_primary) {
			d->action = POLICY_SWITCH;
			d->to = to;
			s->prepared = -1; /* the switch moves every message */
		} else {
			d->action = POLICY_CANCEL;
			d->to = s->guard_candidate;
			snprintf(d->reason, sizeof(d->reason), "rule no longer holds");
		}
		s->guard_candidate = -1;
		return;
	}
	to = rule(s, samples, n, prim, d->reason, sizeof(d->reason));
	if (to < 0 || to == current_primary) {
		d->reason[0] = '\0';
		if (s->p.kind == POLICY_SIGNAL)
			signal_prepare(s, samples, n, prim, current_primary, d);
		return;
	}
	if (s->p.guard_hi_ms > 0) {
		int64_t g = draw_guard_ns(s);
		size_t len = strlen(d->reason);

		s->guarding = true;
		s->guard_candidate = to;
		s->guard_end_ns = now_ns + g;
		d->action = POLICY_GUARD;
		d->to = to;
		snprintf(d->reason + len, sizeof(d->reason) - len, " guard %" PRId64 "ms",
			 g / NS_PER_MS_POLICY);
		if (s->p.guard_hb_ms > 0) {
			d->hb_slot = to;
			d->hb_ms = s->p.guard_hb_ms;
		}
		return;
	}
	d->action = POLICY_SWITCH;
	d->to = to;
	s->prepared = -1;
}
