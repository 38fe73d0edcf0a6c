/* The record file: the agent's only machine-readable output.
 *
 * One record per line, tab-separated, first field the record type; the
 * format is specified in RECORDS.md and every line is produced here so the
 * format lives in one place.  Writes are buffered for speed, but a reader
 * following the file live sees state changes (assoc, addr, event, end)
 * at once and everything else within FLUSH_INTERVAL.
 */
#ifndef SCTPBENCH_RECORDS_H
#define SCTPBENCH_RECORDS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#define RECORDS_FLUSH_INTERVAL_NS (100 * INT64_C(1000000))

struct records {
	FILE *f;
	bool dirty;
	int64_t dirty_since_ns; /* when the oldest unflushed line was written */
	int error;              /* first write errno; sticky */
};

/* Creates (truncates) the file and writes the header line. */
int records_open(struct records *r, const char *path);
/* Flushes and closes; -1 (errno set) if anything was lost. */
int records_close(struct records *r);
bool records_failed(const struct records *r);
int records_error(const struct records *r);

/* INT64_MAX when nothing is waiting to be flushed. */
int64_t records_flush_deadline(const struct records *r);
/* Returns true when it wrote (a system call since `now` was read). */
bool records_flush_if_due(struct records *r, int64_t now);
/* Before telling the harness a milestone on stdout, so the records that
 * led up to it are already in the file when it looks. */
void records_flush(struct records *r);

void records_meta(struct records *r, const char *key, const char *value);
void records_meta_i64(struct records *r, const char *key, int64_t value);
/* An option left to the stack is recorded as "-": the `param` records then
 * show what the stack chose. */
void records_meta_opt(struct records *r, const char *key, bool given, int64_t value);
void records_assoc(struct records *r, int64_t t, const char *state,
		   unsigned error, unsigned outstreams, unsigned instreams);
void records_param(struct records *r, int64_t t, const char *name, const char *value);
void records_param_u64(struct records *r, int64_t t, const char *name, uint64_t value);
void records_peer(struct records *r, int64_t t, const struct sockaddr_storage *addr);
/* t_sched: when the schedule wanted the message generated, so a reader can
 * tell how late the sender was (Poisson's schedule exists only in here; a
 * schedule file's is T + the message's offset); stream and size are the
 * message's own, so a schedule file's messages map back to their lines;
 * RECORDS_NO_TIME, printed as "-", when there is no schedule (saturate). */
#define RECORDS_NO_TIME INT64_MIN
void records_tx(struct records *r, int64_t t_gen, uint64_t seq, unsigned stream,
		uint64_t size, int64_t t_sent, int64_t t_sched);
/* seq/t_gen are printed as "-" when the payload was too short to carry
 * them; stream as "-" when the kernel gave no receive info. */
void records_rx(struct records *r, int64_t t_rx, bool have_payload_header,
		uint64_t seq, bool have_stream, unsigned stream, uint64_t size,
		int64_t t_gen, const struct sockaddr_storage *from);
void records_addr(struct records *r, int64_t t, const struct sockaddr_storage *addr,
		  const char *state, int error);
void records_path(struct records *r, int64_t t, const struct sockaddr_storage *addr,
		  const char *state, uint32_t cwnd, uint32_t srtt_raw,
		  uint32_t rto_ms, uint32_t mtu, bool primary);
/* The primary path's congestion state (linux/cc_info.h): a `cc` record. */
void records_cc(struct records *r, int64_t t, const struct sockaddr_storage *primary,
		uint32_t cwnd, uint32_t ssthresh, uint32_t flight_size,
		uint32_t partial_bytes_acked);
/* args may be NULL for an event without arguments. */
void records_event(struct records *r, int64_t t, const char *name, const char *args);
void records_sendfail(struct records *r, int64_t t, uint32_t error,
		      bool have_seq, uint64_t seq);
/* fields: DECISION BEFORE AFTER CANDIDATE REASON PATH..., tab-joined by
 * the policy runner (linux/policy_run.c); the layout is in RECORDS.md. */
void records_policy(struct records *r, int64_t t, const char *fields);
/* fields: SEQ STREAM SIZE ORDER SCHEDULER CHOSEN REASON PATH..., tab-joined
 * by the scheduler runner (sched_run.c); the layout is in RECORDS.md. */
void records_sched(struct records *r, int64_t t, const char *fields);
void records_shutdown(struct records *r, int64_t t);
void records_remote_error(struct records *r, int64_t t, unsigned cause);
void records_end(struct records *r, int64_t t, uint64_t count);

#endif
