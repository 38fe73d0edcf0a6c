#include "records.h"

#include "addr.h"
#include "clock.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>

/* Large enough that a 20 ms sampling interval and a few thousand tx/rx
 * lines per second never force a write before the flush interval. */
#define RECORDS_BUFFER_BYTES (256 * 1024)

static void note_error(struct records *r)
{
	if (r->error == 0)
		r->error = errno != 0 ? errno : EIO;
}

static void flush_now(struct records *r)
{
	if (fflush(r->f) != 0)
		note_error(r);
	r->dirty = false;
}

/* urgent: a state change a live reader must see without waiting. */
static void emit(struct records *r, bool urgent, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emit(struct records *r, bool urgent, const char *fmt, ...)
{
	va_list ap;

	if (r->f == NULL)
		return;
	va_start(ap, fmt);
	if (vfprintf(r->f, fmt, ap) < 0)
		note_error(r);
	va_end(ap);
	if (urgent) {
		flush_now(r);
	} else if (!r->dirty) {
		r->dirty = true;
		r->dirty_since_ns = now_ns();
	}
}

int records_open(struct records *r, const char *path)
{
	r->f = NULL;
	r->dirty = false;
	r->dirty_since_ns = 0;
	r->error = 0;
	r->f = fopen(path, "we");
	if (r->f == NULL)
		return -1;
	/* Full buffering with our own size: the default for a file is a few
	 * KiB, which would turn a busy run into a write per few records. */
	if (setvbuf(r->f, NULL, _IOFBF, RECORDS_BUFFER_BYTES) != 0) {
		int err = errno;

		fclose(r->f);
		r->f = NULL;
		errno = err;
		return -1;
	}
	emit(r, true, "#sctpbench-records\tv1\tclock=%s\tunit=ns\n", clock_name());
	if (r->error != 0) {
		fclose(r->f);
		r->f = NULL;
		errno = r->error;
		return -1;
	}
	return 0;
}

int records_close(struct records *r)
{
	if (r->f == NULL)
		return 0;
	if (fclose(r->f) != 0)
		note_error(r);
	r->f = NULL;
	if (r->error != 0) {
		errno = r->error;
		return -1;
	}
	return 0;
}

bool records_failed(const struct records *r)
{
	return r->error != 0;
}

int records_error(const struct records *r)
{
	return r->error;
}

int64_t records_flush_deadline(const struct records *r)
{
	if (!r->dirty)
		return INT64_MAX;
	return r->dirty_since_ns + RECORDS_FLUSH_INTERVAL_NS;
}

bool records_flush_if_due(struct records *r, int64_t now)
{
	if (r->f == NULL || !r->dirty || now < records_flush_deadline(r))
		return false;
	flush_now(r);
	return true;
}

void records_flush(struct records *r)
{
	if (r->f != NULL)
		flush_now(r);
}

void records_meta(struct records *r, const char *key, const char *value)
{
	emit(r, false, "meta\t%s\t%s\n", key, value);
}

void records_meta_i64(struct records *r, const char *key, int64_t value)
{
	emit(r, false, "meta\t%s\t%" PRId64 "\n", key, value);
}

void records_meta_opt(struct records *r, const char *key, bool given, int64_t value)
{
	if (given)
		records_meta_i64(r, key, value);
	else
		records_meta(r, key, "-");
}

void records_assoc(struct records *r, int64_t t, const char *state,
		   unsigned error, unsigned outstreams, unsigned instreams)
{
	emit(r, true, "assoc\t%" PRId64 "\t%s\t%u\t%u\t%u\n", t, state, error,
	     outstreams, instreams);
}

void records_param(struct records *r, int64_t t, const char *name, const char *value)
{
	emit(r, false, "param\t%" PRId64 "\t%s\t%s\n", t, name, value);
}

void records_param_u64(struct records *r, int64_t t, const char *name, uint64_t value)
{
	emit(r, false, "param\t%" PRId64 "\t%s\t%" PRIu64 "\n", t, name, value);
}

void records_peer(struct records *r, int64_t t, const struct sockaddr_storage *addr)
{
	char a[ADDR_STR_MAX];

	emit(r, false, "peer\t%" PRId64 "\t%s\n", t, addr_format(addr, a));
}

void records_tx(struct records *r, int64_t t_gen, uint64_t seq, unsigned stream,
		uint64_t size, int64_t t_sent, int64_t t_sched)
{
	char sched_s[24] = "-";

	if (t_sched != RECORDS_NO_TIME)
		snprintf(sched_s, sizeof(sched_s), "%" PRId64, t_sched);
	emit(r, false, "tx\t%" PRId64 "\t%" PRIu64 "\t%u\t%" PRIu64 "\t%" PRId64 "\t%s\n",
	     t_gen, seq, stream, size, t_sent, sched_s);
}

void records_rx(struct records *r, int64_t t_rx, bool have_payload_header,
		uint64_t seq, bool have_stream, unsigned stream, uint64_t size,
		int64_t t_gen, const struct sockaddr_storage *from)
{
	char a[ADDR_STR_MAX];
	char seq_s[24] = "-", stream_s[8] = "-", tgen_s[24] = "-";

	if (have_payload_header) {
		snprintf(seq_s, sizeof(seq_s), "%" PRIu64, seq);
		snprintf(tgen_s, sizeof(tgen_s), "%" PRId64, t_gen);
	}
	if (have_stream)
		snprintf(stream_s, sizeof(stream_s), "%u", stream & 0xffffu);
	emit(r, false, "rx\t%" PRId64 "\t%s\t%s\t%" PRIu64 "\t%s\t%s\n", t_rx,
	     seq_s, stream_s, size, tgen_s, addr_format(from, a));
}

void records_addr(struct records *r, int64_t t, const struct sockaddr_storage *addr,
		  const char *state, int error)
{
	char a[ADDR_STR_MAX];

	emit(r, true, "addr\t%" PRId64 "\t%s\t%s\t%d\n", t, addr_format(addr, a),
	     state, error);
}

void records_path(struct records *r, int64_t t, const struct sockaddr_storage *addr,
		  const char *state, uint32_t cwnd, uint32_t srtt_raw,
		  uint32_t rto_ms, uint32_t mtu, bool primary)
{
	char a[ADDR_STR_MAX];

	emit(r, false,
	     "path\t%" PRId64 "\t%s\t%s\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\t%d\n",
	     t, addr_format(addr, a), state, cwnd, srtt_raw, rto_ms, mtu, primary ? 1 : 0);
}

void records_cc(struct records *r, int64_t t, const struct sockaddr_storage *primary,
		uint32_t cwnd, uint32_t ssthresh, uint32_t flight_size,
		uint32_t partial_bytes_acked)
{
	char a[ADDR_STR_MAX];

	emit(r, false, "cc\t%" PRId64 "\t%s\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\n",
	     t, addr_format(primary, a), cwnd, ssthresh, flight_size, partial_bytes_acked);
}

void records_event(struct records *r, int64_t t, const char *name, const char *args)
{
	if (args != NULL && args[0] != '\0')
		emit(r, true, "event\t%" PRId64 "\t%s\t%s\n", t, name, args);
	else
		emit(r, true, "event\t%" PRId64 "\t%s\n", t, name);
}

void records_sendfail(struct records *r, int64_t t, uint32_t error,
		      bool have_seq, uint64_t seq)
{
	if (have_seq)
		emit(r, false, "sendfail\t%" PRId64 "\t%" PRIu32 "\t%" PRIu64 "\n", t, error, seq);
	else
		emit(r, false, "sendfail\t%" PRId64 "\t%" PRIu32 "\t-\n", t, error);
}

void records_policy(struct records *r, int64_t t, const char *fields)
{
	emit(r, true, "policy\t%" PRId64 "\t%s\n", t, fields);
}

void records_sched(struct records *r, int64_t t, const char *fields)
{
	emit(r, false, "sched\t%" PRId64 "\t%s\n", t, fields);
}

void records_shutdown(struct records *r, int64_t t)
{
	emit(r, false, "shutdown\t%" PRId64 "\n", t);
}

void records_remote_error(struct records *r, int64_t t, unsigned cause)
{
	emit(r, false, "remote_error\t%" PRId64 "\t%u\n", t, cause);
}

void records_end(struct records *r, int64_t t, uint64_t count)
{
	emit(r, true, "end\t%" PRId64 "\t%" PRIu64 "\n", t, count);
}
