/* Host-side unit checks of the path-selection policies (policy.c): each
 * policy's decisions on synthetic per-path sample sequences. */
#include "../policy.h"

#include <stdio.h>
#include <string.h>

static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

#define MS INT64_C(1000000)

static void params(const char *text, struct policy_params *p)
{
	char err[200] = "";

	if (policy_parse(text, p, err, sizeof(err)) != 0) {
		fprintf(stderr, "FAIL parse '%s': %s\n", text, err);
		fails++;
	}
}

/* Two paths, slot 0 and slot 1, both active. */
static void step2(struct policy_state *s, int64_t t, double srtt0, double srtt1, int primary,
		  struct policy_decision *d)
{
	struct policy_sample x[2] = {
		{ .slot = 0, .srtt_ms = srtt0, .rto_ms = 200, .active = true },
		{ .slot = 1, .srtt_ms = srtt1, .rto_ms = 200, .active = true },
	};

	policy_step(s, t, x, 2, primary, d);
}

static void test_parse(void)
{
	struct policy_params p;
	char err[200];

	CHECK(policy_parse("static", &p, err, sizeof err) == 0 && p.kind == POLICY_STATIC);
	CHECK(policy_parse("delay-centric", &p, err, sizeof err) == 0 && p.kind == POLICY_DELAY_CENTRIC &&
	      p.hysteresis_ms == 10 && p.guard_hi_ms == 0 && p.hz == 1000);
	CHECK(policy_parse("delay-centric:hysteresis=5,guard=1000-4000,guard_hb=30,seed=7", &p, err, sizeof err) == 0 &&
	      p.hysteresis_ms == 5 && p.guard_lo_ms == 1000 && p.guard_hi_ms == 4000 && p.guard_hb_ms == 30 &&
	      p.have_seed && p.seed == 7);
	CHECK(strcmp(p.text, "delay-centric:hysteresis=5,guard=1000-4000,guard_hb=30,seed=7") == 0);
	CHECK(policy_parse("delay-centric:guard=500", &p, err, sizeof err) == 0 && p.guard_lo_ms == 500 && p.guard_hi_ms == 500);
	CHECK(policy_parse("predictive", &p, err, sizeof err) == 0 && p.short_alpha == 0.667 && p.long_alpha == 0.154 &&
	      p.threshold_ms == 150 && !p.original);
	CHECK(policy_parse("predictive:form=original,threshold=70", &p, err, sizeof err) == 0 && p.original && p.threshold_ms == 70);
	CHECK(policy_parse("rtt-ratio", &p, err, sizeof err) == 0 && p.alpha_conservative == 9 &&
	      p.alpha_aggressive == 3 && p.beta_ms == 1000);
	/* rejections */
	CHECK(policy_parse("fastest", &p, err, sizeof err) != 0 && strstr(err, "unknown policy") != NULL);
	CHECK(policy_parse("static:hysteresis=1", &p, err, sizeof err) != 0);
	CHECK(policy_parse("delay-centric:alpha_c=2", &p, err, sizeof err) != 0 && strstr(err, "alpha_c") != NULL);
	CHECK(policy_parse("delay-centric:hysteresis=-1", &p, err, sizeof err) != 0);
	CHECK(policy_parse("delay-centric:hysteresis", &p, err, sizeof err) != 0);
	CHECK(policy_parse("delay-centric:guard=4000-1000", &p, err, sizeof err) != 0);
	CHECK(policy_parse("delay-centric:guard=1x", &p, err, sizeof err) != 0);
	CHECK(policy_parse("predictive:short=0.1,long=0.5", &p, err, sizeof err) != 0);
	CHECK(policy_parse("predictive:form=sideways", &p, err, sizeof err) != 0);
	CHECK(policy_parse("rtt-ratio:alpha_c=2,alpha_a=3", &p, err, sizeof err) != 0);
	CHECK(policy_parse("rtt-ratio:alpha_a=0.5", &p, err, sizeof err) != 0);
	puts("policy parse ok");
}

static void test_static(void)
{
	struct policy_params p;
	struct policy_state s;
	struct policy_decision d;

	params("static", &p);
	policy_init(&s, &p);
	step2(&s, 0, 500, 10, 0, &d);
	CHECK(d.action == POLICY_STAY && d.hb_slot == -1);
	/* even a dead primary: the stack alone handles it */
	struct policy_sample x[2] = { { 0, 500, 200, false }, { 1, 10, 200, true } };
	policy_step(&s, 1, x, 2, 0, &d);
	CHECK(d.action == POLICY_STAY);
	puts("policy static ok");
}

static void test_delay_centric(void)
{
	struct policy_params p;
	struct policy_state s;
	struct policy_decision d;

	params("delay-centric", &p);
	policy_init(&s, &p);
	/* within the hysteresis (a gap of exactly 10 ms is not more than 10) */
	step2(&s, 0, 20, 20, 0, &d);
	CHECK(d.action == POLICY_STAY);
	step2(&s, 1 * MS, 25, 15, 0, &d);
	CHECK(d.action == POLICY_STAY);
	/* beyond it */
	step2(&s, 2 * MS, 25.5, 15, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1 && d.hb_slot == -1);
	CHECK(strstr(d.reason, "srtt 25.5>15.0+10") != NULL);
	/* on the new primary the other path is worse: stay */
	step2(&s, 3 * MS, 25.5, 15, 1, &d);
	CHECK(d.action == POLICY_STAY && d.reason[0] == '\0');
	/* unmeasured (srtt 0) and inactive paths are never candidates */
	struct policy_sample x[3] = { { 0, 100, 300, true }, { 1, 0, 3000, true }, { 2, 5, 200, false } };
	policy_step(&s, 4 * MS, x, 3, 0, &d);
	CHECK(d.action == POLICY_STAY);
	/* a failed primary: any usable active path */
	struct policy_sample y[2] = { { 0, 10, 300, false }, { 1, 40, 200, true } };
	policy_step(&s, 5 * MS, y, 2, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1 && strcmp(d.reason, "primary-inactive") == 0);
	/* three paths: the lowest SRTT wins */
	struct policy_sample z[3] = { { 0, 80, 300, true }, { 1, 40, 200, true }, { 2, 30, 200, true } };
	policy_step(&s, 6 * MS, z, 3, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 2);
	/* slots out of range are ignored, not indexed */
	struct policy_sample bad[2] = { { -1, 1, 1, true }, { POLICY_MAX_PATHS, 1, 1, true } };
	policy_step(&s, 7 * MS, bad, 2, 0, &d);
	CHECK(d.action == POLICY_STAY);
	/* hysteresis parameter */
	params("delay-centric:hysteresis=0", &p);
	policy_init(&s, &p);
	step2(&s, 0, 20.5, 20, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1);
	puts("policy delay-centric ok");
}

static void test_guard(void)
{
	struct policy_params p;
	struct policy_state s;
	struct policy_decision d;
	int64_t seen_lo = INT64_MAX, seen_hi = 0;

	/* fixed guard, confirmed */
	params("delay-centric:guard=1000", &p);
	policy_init(&s, &p);
	step2(&s, 0, 60, 10, 0, &d);
	CHECK(d.action == POLICY_GUARD && d.to == 1 && d.hb_slot == 1 && d.hb_ms == 20 && !d.hb_restore);
	CHECK(strstr(d.reason, "guard 1000ms") != NULL);
	step2(&s, 500 * MS, 60, 10, 0, &d);
	CHECK(d.action == POLICY_STAY && d.hb_slot == -1);
	step2(&s, 999 * MS, 60, 10, 0, &d);
	CHECK(d.action == POLICY_STAY);
	step2(&s, 1000 * MS, 60, 10, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1 && d.hb_slot == 1 && d.hb_restore);
	/* fixed guard, cancelled: the gap closed during the guard */
	policy_init(&s, &p);
	step2(&s, 0, 60, 10, 0, &d);
	CHECK(d.action == POLICY_GUARD);
	step2(&s, 1000 * MS, 15, 10, 0, &d);
	CHECK(d.action == POLICY_CANCEL && d.to == 1 && d.hb_slot == 1 && d.hb_restore);
	/* and afterwards the rule is evaluated afresh */
	step2(&s, 1001 * MS, 60, 10, 0, &d);
	CHECK(d.action == POLICY_GUARD);
	/* guard_hb=0 leaves heartbeats alone */
	params("delay-centric:guard=100,guard_hb=0", &p);
	policy_init(&s, &p);
	step2(&s, 0, 60, 10, 0, &d);
	CHECK(d.action == POLICY_GUARD && d.hb_slot == -1);
	step2(&s, 100 * MS, 60, 10, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.hb_slot == -1);
	/* random guard in [1000, 4000] ms, seeded: reproducible and in range */
	params("delay-centric:guard=1000-4000,seed=42", &p);
	policy_init(&s, &p);
	for (int rep = 0; rep < 50; rep++) {
		int64_t t0 = rep * 5000 * MS, end;

		step2(&s, t0, 60, 10, 0, &d);
		CHECK(d.action == POLICY_GUARD);
		end = s.guard_end_ns - t0;
		CHECK(end >= 1000 * MS && end <= 4000 * MS);
		if (end < seen_lo) seen_lo = end;
		if (end > seen_hi) seen_hi = end;
		step2(&s, t0 + end, 15, 10, 0, &d); /* cancel, next round draws again */
		CHECK(d.action == POLICY_CANCEL);
	}
	CHECK(seen_hi > seen_lo); /* it does vary */
	{
		struct policy_state a, b;

		policy_init(&a, &p);
		policy_init(&b, &p);
		step2(&a, 0, 60, 10, 0, &d);
		step2(&b, 0, 60, 10, 0, &d);
		CHECK(a.guard_end_ns == b.guard_end_ns); /* same seed, same draw */
	}
	puts("policy guard ok");
}

static void test_predictive(void)
{
	struct policy_params p;
	struct policy_state s;
	struct policy_decision d;
	int t, switched_at = -1;

	/* Modified form: the primary's delay climbs from 100 ms towards 300 ms
	 * while the alternate sits at 120 ms.  No switch while the primary's
	 * short average is below the threshold; a switch once it is above it,
	 * rising faster than the alternate's, and above the alternate's. */
	params("predictive", &p);
	policy_init(&s, &p);
	for (t = 0; t < 20; t++) {
		step2(&s, t * 20 * MS, 100, 120, 0, &d);
		CHECK(d.action == POLICY_STAY);
	}
	/* short avg starts at the level, long avg too: S - L == 0 */
	CHECK(s.path[0].ema_short > 99.9 && s.path[0].ema_short < 100.1);
	for (; t < 60 && switched_at < 0; t++) {
		double srtt = 100 + (t - 19) * 10.0;

		step2(&s, t * 20 * MS, srtt, 120, 0, &d);
		if (d.action == POLICY_SWITCH)
			switched_at = t;
		else
			CHECK(d.action == POLICY_STAY);
	}
	CHECK(switched_at > 0 && d.to == 1);
	/* at the crossing: S_p above threshold, S_p - L_p > S_a - L_a, S_p > S_a */
	CHECK(s.path[0].ema_short > 150 && s.path[0].ema_short > s.path[0].ema_long);
	CHECK(strstr(d.reason, "macd") != NULL);
	/* and not a round earlier: the short average only just crossed 150 */
	{
		double srtt_prev = 100 + (switched_at - 1 - 19) * 10.0;
		CHECK(srtt_prev < 160);
	}

	/* A high but falling primary: the original form needs S > L (rising)
	 * and stays; a high steady primary stays too (S == L, no trend). */
	params("predictive:form=original", &p);
	policy_init(&s, &p);
	for (t = 0; t < 30; t++) {
		step2(&s, t * 20 * MS, 400 - t * 5.0, 50, 0, &d);
		CHECK(d.action == POLICY_STAY);
	}
	policy_init(&s, &p);
	for (t = 0; t < 30; t++) {
		step2(&s, t * 20 * MS, 300, 50, 0, &d);
		CHECK(d.action == POLICY_STAY);
	}
	/* then it rises: the original form switches at the MACD crossing */
	step2(&s, 30 * 20 * MS, 330, 50, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1);

	/* Modified form: the alternate rises even faster than the primary -> stay */
	params("predictive:threshold=100", &p);
	policy_init(&s, &p);
	for (t = 0; t < 20; t++)
		step2(&s, t * 20 * MS, 200, 100, 0, &d);
	step2(&s, 20 * 20 * MS, 220, 180, 0, &d);
	CHECK(d.action == POLICY_STAY); /* trend_p (~13) < trend_a (~52) */
	/* while the original form, blind to the alternate's trend, switches */
	params("predictive:threshold=100,form=original", &p);
	policy_init(&s, &p);
	for (t = 0; t < 20; t++)
		step2(&s, t * 20 * MS, 200, 100, 0, &d);
	step2(&s, 20 * 20 * MS, 220, 180, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1);

	/* Three paths: the one with the lowest predicted SRTT is chosen */
	params("predictive:threshold=100", &p);
	policy_init(&s, &p);
	for (t = 0; t < 20; t++) {
		struct policy_sample x[3] = { { 0, 200, 300, true }, { 1, 150, 300, true }, { 2, 120, 300, true } };
		policy_step(&s, t * 20 * MS, x, 3, 0, &d);
	}
	{
		struct policy_sample x[3] = { { 0, 260, 300, true }, { 1, 150, 300, true }, { 2, 120, 300, true } };
		policy_step(&s, 20 * 20 * MS, x, 3, 0, &d);
		CHECK(d.action == POLICY_SWITCH && d.to == 2);
	}
	/* EMA lengths as parameters: a sluggish short average needs longer */
	{
		int fast = -1, slow = -1;

		params("predictive:short=0.9,long=0.1", &p);
		policy_init(&s, &p);
		for (t = 0; t < 40 && fast < 0; t++) {
			step2(&s, t * 20 * MS, t < 5 ? 100 : 300, 120, 0, &d);
			if (d.action == POLICY_SWITCH) fast = t;
		}
		params("predictive:short=0.2,long=0.1", &p);
		policy_init(&s, &p);
		for (t = 0; t < 40 && slow < 0; t++) {
			step2(&s, t * 20 * MS, t < 5 ? 100 : 300, 120, 0, &d);
			if (d.action == POLICY_SWITCH) slow = t;
		}
		CHECK(fast == 5 && slow > fast);
	}
	/* predictive with a guard, confirmed after it */
	params("predictive:guard=200", &p);
	policy_init(&s, &p);
	for (t = 0; t < 5; t++)
		step2(&s, t * 20 * MS, 100, 120, 0, &d);
	step2(&s, 5 * 20 * MS, 400, 120, 0, &d);
	CHECK(d.action == POLICY_GUARD && d.to == 1 && d.hb_slot == 1);
	step2(&s, 5 * 20 * MS + 200 * MS, 400, 120, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1 && d.hb_restore);
	puts("policy predictive ok");
}

static void test_rtt_ratio(void)
{
	struct policy_params p;
	struct policy_state s;
	struct policy_decision d;

	/* the seed's values: alpha_c 9 below beta 1 s, alpha_a 3 above */
	params("rtt-ratio", &p);
	policy_init(&s, &p);
	/* small gap (< beta): conservative alpha 9 */
	step2(&s, 0, 800, 100, 0, &d);   /* 800 > 9*100? no */
	CHECK(d.action == POLICY_STAY);
	step2(&s, 1, 950, 100, 0, &d);   /* gap 850 < 1000, 950 > 900 */
	CHECK(d.action == POLICY_SWITCH && d.to == 1 && strstr(d.reason, "conservative") != NULL);
	/* large gap (> beta): aggressive alpha 3 */
	step2(&s, 2, 2500, 900, 0, &d);  /* gap 1600, 2500 < 2700 */
	CHECK(d.action == POLICY_STAY);
	step2(&s, 3, 3000, 900, 0, &d);  /* gap 2100, 3000 > 2700 */
	CHECK(d.action == POLICY_SWITCH && d.to == 1 && strstr(d.reason, "aggressive") != NULL);
	CHECK(strstr(d.reason, "3*900.0") != NULL);
	/* the same ratio with a small absolute gap stays (conservative) */
	step2(&s, 4, 40, 10, 0, &d);
	CHECK(d.action == POLICY_STAY);
	/* testbed-sized parameters */
	params("rtt-ratio:alpha_c=2,alpha_a=1.2,beta=30", &p);
	policy_init(&s, &p);
	step2(&s, 0, 35, 20, 0, &d);     /* gap 15 < 30: 35 < 40 */
	CHECK(d.action == POLICY_STAY);
	step2(&s, 1, 41, 22, 0, &d);     /* gap 19 < 30: 41 < 44 */
	CHECK(d.action == POLICY_STAY);
	step2(&s, 2, 45, 22, 0, &d);     /* gap 23 < 30: 45 > 44 */
	CHECK(d.action == POLICY_SWITCH);
	step2(&s, 3, 100, 60, 0, &d);    /* gap 40 > 30: 100 > 72 */
	CHECK(d.action == POLICY_SWITCH && strstr(d.reason, "aggressive") != NULL);
	step2(&s, 4, 100, 90, 0, &d);    /* gap 10 < 30: 100 < 180 */
	CHECK(d.action == POLICY_STAY);
	puts("policy rtt-ratio ok");
}

int main(void)
{
	test_parse();
	test_static();
	test_delay_centric();
	test_guard();
	test_predictive();
	test_rtt_ratio();
	printf("POLICY %s (%d failures)\n", fails ? "FAILED" : "OK", fails);
	return fails ? 1 : 0;
}
