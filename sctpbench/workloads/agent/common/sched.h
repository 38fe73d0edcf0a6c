/* Sender-side multipath scheduling (concurrent multipath transfer, seed
 * 000 Paper III): the path each message is sent on, chosen message by
 * message from the stack's per-path measurements (SCTP_GET_PEER_ADDR_INFO)
 * and the scheduler's own account of what it has sent where.
 *
 * Pure logic, no sockets: the caller describes every peer address (in
 * --peer order; a path is its index there), asks sched_choose() for the
 * next message's path, sends it there (SCTP_ADDR_OVER) and, only once the
 * send succeeded, calls sched_commit() so a refused send (EAGAIN) leaves
 * no trace.  The schedulers:
 *   primary        no choice: the stack sends on its primary (default).
 *   round-robin    the next active path after the last one used.
 *   static-stream  stream s on path s mod n (Dreibholz's static
 *                  stream-to-path mapping); the next active path if that
 *                  one is not active.
 *   dynamic-path   the path with the least expected delivery time (EDT).
 *   stream-aware   the path with the least expected *in-order* delivery
 *                  time: for an ordered message the stream's previous
 *                  message must be delivered first, so a path's EDT
 *                  counts from no earlier than that; among paths within
 *                  `margin` of the best, the stream's own path (the one
 *                  its previous message took) is kept, so a stream moves
 *                  only when another path delivers it earlier.
 * The expected delivery time on path p of a message of SIZE bytes:
 *   rate_p   = cwnd_p / srtt_p                       (bytes per ns)
 *   queued_p = max(0, busy_p - now) * rate_p         (bytes still ahead)
 *   EDT_p    = max(now, busy_p) - now + SIZE / rate_p + srtt_p / 2
 * where busy_p is when the data this scheduler already gave path p is
 * expected to have left (it grows by SIZE / rate_p with each message),
 * and srtt_p is the RTO when the path has no SRTT yet.  Linux reports no
 * per-path flight size, so the queue is the scheduler's own estimate.
 */
#ifndef SCTPBENCH_SCHED_H
#define SCTPBENCH_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCHED_MAX_PATHS 16
#define SCHED_TEXT_MAX 128
#define SCHED_REASON_MAX 96
#define SCHED_STREAMS 65536

enum sched_kind {
	SCHED_PRIMARY,
	SCHED_ROUND_ROBIN,
	SCHED_STATIC_STREAM,
	SCHED_DYNAMIC_PATH,
	SCHED_STREAM_AWARE,
};

struct sched_params {
	enum sched_kind kind;
	char text[SCHED_TEXT_MAX]; /* the option as given, for `meta scheduler` */
	unsigned hz;               /* hz=N: kernel HZ, to read SRTT jiffies; default 1000 */
	bool hz_given;             /* hz= was given (usrsctp refuses it: SRTT in ms) */
	double margin_ms;          /* stream-aware: margin=MS, default 0 */
};

/* One path as the stack describes it at this message. */
struct sched_path {
	bool known;      /* the stack described it (else: not a candidate) */
	bool active;     /* SCTP_ACTIVE */
	double srtt_ms;  /* 0: not measured yet */
	double rto_ms;
	uint32_t cwnd;
};

struct sched_stream {
	int path;           /* the path of the stream's last message, -1: none yet */
	int64_t deliver_ns; /* expected in-order delivery of its last ordered message */
};

struct sched_state {
	struct sched_params p;
	size_t n_paths;
	int last;                                /* round-robin: last path used, -1 */
	int64_t busy_ns[SCHED_MAX_PATHS];        /* see above */
	struct sched_stream *streams;            /* SCHED_STREAMS entries */
};

/* The decision with every input it used, for the `sched` record. */
struct sched_choice {
	int path;                              /* -1: no active path: the stack decides */
	double srtt_ms[SCHED_MAX_PATHS];       /* the estimate used (RTO if unmeasured) */
	double queued_bytes[SCHED_MAX_PATHS];
	double edt_ms[SCHED_MAX_PATHS];        /* expected delivery, from now */
	double eff_ms[SCHED_MAX_PATHS];        /* stream-aware: in-order delivery, from now */
	char reason[SCHED_REASON_MAX];         /* no tabs or newlines */
};

/* Parses NAME[:k=v,...] into *p.  Returns 0, or -1 with a message in err. */
int sched_parse(const char *text, struct sched_params *p, char *err, size_t errlen);
const char *sched_kind_name(enum sched_kind kind);
/* n_paths: the number of peer addresses (at most SCHED_MAX_PATHS).
 * Returns -1 when the stream table cannot be allocated. */
int sched_init(struct sched_state *s, const struct sched_params *p, size_t n_paths);
void sched_free(struct sched_state *s);
/* Chooses a path for the next message; changes nothing. */
void sched_choose(const struct sched_state *s, int64_t now_ns, const struct sched_path *paths,
		  unsigned stream, bool unordered, uint64_t size, struct sched_choice *c);
/* The message went out as chosen: account for it. */
void sched_commit(struct sched_state *s, int64_t now_ns, const struct sched_path *paths,
		  unsigned stream, bool unordered, uint64_t size, const struct sched_choice *c);

#endif
