#include "arrival.h"

#include "clock.h"

#include <math.h>
#include <string.h>

static const char *const kind_names[] = {
	[ARRIVAL_PERIODIC] = "periodic",
	[ARRIVAL_POISSON] = "poisson",
	[ARRIVAL_SATURATE] = "saturate",
	[ARRIVAL_SCHEDULE] = "schedule",
};

int arrival_kind_parse(const char *word, enum arrival_kind *out)
{
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++) {
		if (strcmp(word, kind_names[i]) == 0) {
			*out = (enum arrival_kind)i;
			return 0;
		}
	}
	return -1;
}

const char *arrival_kind_name(enum arrival_kind kind)
{
	if ((size_t)kind < sizeof(kind_names) / sizeof(kind_names[0]))
		return kind_names[kind];
	return "?";
}

/* Schedules are clamped this far out so the double-to-integer conversions
 * below can never overflow; no experiment runs for 30 years. */
#define ARRIVAL_HORIZON_NS 1e18

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void prng_seed(struct prng *p, uint64_t seed)
{
	uint64_t x = seed;

	/* splitmix64 never yields four zero words, the one state xoshiro
	 * cannot leave, whatever the seed. */
	for (int i = 0; i < 4; i++)
		p->s[i] = splitmix64(&x);
}

uint64_t prng_next(struct prng *p)
{
	uint64_t *s = p->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double prng_unit(struct prng *p)
{
	return (double)(prng_next(p) >> 11) * 0x1.0p-53;
}

void arrival_init(struct arrival *a, enum arrival_kind kind, double rate,
		  uint64_t seed, const struct schedule *sched, int64_t t0)
{
	a->kind = kind;
	a->sched = sched;
	a->rate = rate;
	a->t0 = t0;
	a->index = 0;
	a->last = t0;
	prng_seed(&a->rng, seed);
}

static int64_t clamp_offset(double ns)
{
	return ns > ARRIVAL_HORIZON_NS ? (int64_t)ARRIVAL_HORIZON_NS : (int64_t)llround(ns);
}

int64_t arrival_next(struct arrival *a)
{
	uint64_t i = a->index++;
	int64_t t;

	if (a->kind == ARRIVAL_SCHEDULE) {
		/* Offsets are at most a week and t0 is bounded by the caller,
		 * so the sum cannot overflow. */
		t = i < a->sched->n ? a->t0 + a->sched->m[i].offset_ns : INT64_MAX;
	} else if (i == 0 || a->kind == ARRIVAL_SATURATE) {
		t = a->t0;
	} else if (a->kind == ARRIVAL_PERIODIC) {
		/* From t0 each time rather than by adding gaps, so rounding
		 * never accumulates into drift over a long run. */
		t = a->t0 + clamp_offset((double)i * (double)NS_PER_S / a->rate);
	} else {
		/* Inverse-CDF exponential; log1p(-u) keeps precision for small
		 * u and is finite because u < 1. */
		double u = prng_unit(&a->rng);
		double gap = -log1p(-u) / a->rate * (double)NS_PER_S;

		/* Integer accumulation: the same seed gives the same
		 * nanoseconds, not merely nearly the same doubles. */
		t = a->last + clamp_offset(gap);
	}
	a->last = t;
	return t;
}
