/* Path-selection policies: which path should be the primary, decided from
 * the stack's own per-path measurements (SCTP_GET_PEER_ADDR_INFO).
 *
 * Pure logic, no sockets: the caller samples every path, calls
 * policy_step() once per sampling round and applies the decision
 * (SCTP_PRIMARY_ADDR, and SCTP_PEER_ADDR_PARAMS spp_hbinterval while a
 * guard time runs).  The rules come from the seeds:
 *   static         never switches: the stack alone decides.
 *   delay-centric  reactive delay-centric (seed 003): switch to the active
 *                  path with the lowest SRTT when it beats the primary's by
 *                  more than a hysteresis.
 *   predictive     predictive delay-centric (seed 003): short and long
 *                  exponential moving averages of each path's SRTT (MACD);
 *                  the original form switches when the primary's trend
 *                  rises (S > L), its short average is above a threshold
 *                  and above the alternate's; the modified form (default)
 *                  asks instead that the primary's trend S - L exceed the
 *                  alternate's.
 *   rtt-ratio      seed 002: switch when RTT_p > alpha * RTT_a, with the
 *                  conservative (larger) alpha when |RTT_p - RTT_a| < beta
 *                  and the aggressive (smaller) one above it.
 *   signal         seed 000's handover scheme: an emulated signal-strength
 *                  trace (sigtrace.h) gives each path a value in dBm; the
 *                  primary is left for the strongest active path when its
 *                  signal is below `switch` and the other's is above it by
 *                  more than a hysteresis.  With `prepare` (above switch),
 *                  once the primary falls below it and a candidate
 *                  qualifies, new messages go to the candidate while the
 *                  primary stays (POLICY_PREPARE), so the target's
 *                  congestion window is open when the switch comes.
 * Every non-static policy takes an optional guard time (seed 003): when
 * the rule first points at another path nothing switches yet; the
 * candidate is heartbeated faster until the guard ends, and then the rule
 * is asked again, which confirms (switch) or cancels the handover.
 */
#ifndef SCTPBENCH_POLICY_H
#define SCTPBENCH_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POLICY_MAX_PATHS 16
#define POLICY_TEXT_MAX 256
#define POLICY_REASON_MAX 192

enum policy_kind {
	POLICY_STATIC,
	POLICY_DELAY_CENTRIC,
	POLICY_PREDICTIVE,
	POLICY_RTT_RATIO,
	POLICY_SIGNAL,
};

struct policy_params {
	enum policy_kind kind;
	char text[POLICY_TEXT_MAX]; /* the option as given, for `meta policy` */
	/* delay-centric */
	double hysteresis_ms;     /* hysteresis=MS, default 10 */
	/* predictive */
	double short_alpha;       /* short=A (0-1], default 0.667 */
	double long_alpha;        /* long=A (0-1], default 0.154 */
	double threshold_ms;      /* threshold=MS, default 150 */
	bool original;            /* form=original|modified, default modified */
	/* rtt-ratio */
	double alpha_conservative; /* alpha_c=X >= 1, default 9 */
	double alpha_aggressive;   /* alpha_a=X >= 1, default 3 */
	double beta_ms;            /* beta=MS, default 1000 */
	/* signal */
	double switch_dbm;        /* switch=DBM, default -80 */
	double hysteresis_db;     /* hysteresis=DB, default 5 */
	double prepare_dbm;       /* prepare=DBM (> switch); only with have_prepare */
	bool have_prepare;
	/* every non-static policy */
	int64_t guard_lo_ms;      /* guard=MS or guard=LO-HI; 0-0 = no guard */
	int64_t guard_hi_ms;
	uint32_t guard_hb_ms;     /* guard_hb=MS, default 20; 0 = leave HB alone */
	uint64_t seed;            /* seed=N for a random guard; default --seed */
	bool have_seed;
	unsigned hz;              /* hz=N: kernel HZ, to read SRTT jiffies; default 1000 */
};

/* One path as sampled this round.  `slot` names the path across rounds
 * (the caller keeps a stable address -> slot table), below
 * POLICY_MAX_PATHS. */
struct policy_sample {
	int slot;
	double srtt_ms;  /* 0: not measured yet */
	double rto_ms;
	bool active;     /* SCTP_ACTIVE (PF, INACTIVE, UNCONFIRMED are not) */
	bool has_signal; /* signal policy: the trace gives this path a value now */
	double signal_dbm;
};

enum policy_action {
	POLICY_STAY,    /* nothing to do (not recorded) */
	POLICY_SWITCH,  /* make `to` the primary */
	POLICY_GUARD,   /* a handover to `to` is pending until the guard ends */
	POLICY_CANCEL,  /* the guard ended and the rule no longer holds, or
			 * (signal) the prepared sending to `to` ends */
	POLICY_PREPARE, /* signal: send new messages to `to`, primary unchanged */
};

struct policy_decision {
	enum policy_action action;
	int to;         /* slot: SWITCH's new primary, GUARD/CANCEL's candidate */
	char reason[POLICY_REASON_MAX]; /* no tabs or newlines */
	/* Heartbeat interval to apply, or -1 for none: on GUARD the candidate
	 * gets hb_ms; at the guard's end (SWITCH or CANCEL) hb_restore asks
	 * the caller to put back the interval it had before. */
	int hb_slot;
	uint32_t hb_ms;
	bool hb_restore;
};

struct policy_path {
	bool seen;
	double ema_short; /* predictive only */
	double ema_long;
};

struct policy_state {
	struct policy_params p;
	struct policy_path path[POLICY_MAX_PATHS];
	bool guarding;
	int guard_candidate;
	int64_t guard_end_ns;
	uint64_t rng;
	int prepared; /* signal: the slot new messages go to, or -1 */
};

/* Parses NAME[:k=v,...] into *p.  Returns 0, or -1 with a message in err. */
int policy_parse(const char *text, struct policy_params *p, char *err, size_t errlen);
const char *policy_kind_name(enum policy_kind kind);
void policy_init(struct policy_state *s, const struct policy_params *p);
/* current_primary: the slot of the primary, or -1 if unknown.  Samples of
 * slots outside [0, POLICY_MAX_PATHS) are ignored. */
void policy_step(struct policy_state *s, int64_t now_ns, const struct policy_sample *samples,
		 size_t n, int current_primary, struct policy_decision *d);
const char *policy_action_name(enum policy_action a);
/* signal: the slot a PREPARE sent new messages to, until a SWITCH or a
 * CANCEL; -1 when messages go to the primary as usual. */
int policy_prepared(const struct policy_state *s);

#endif
