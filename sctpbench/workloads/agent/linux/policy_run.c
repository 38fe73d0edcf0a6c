#include "policy_run.h"

#include "common/addr.h"
#include "common/clock.h"
#include "path_state.h"
#include "sockopts.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#define POLICY_LINE_MAX 2048

void policy_runner_init(struct policy_runner *pr, const struct policy_params *p)
{
	memset(pr, 0, sizeof(*pr));
	policy_init(&pr->st, p);
	pr->hb_slot = -1;
}

void policy_runner_use_trace(struct policy_runner *pr, const struct sigtrace *trace)
{
	pr->trace = trace;
}

void policy_runner_start(struct policy_runner *pr, int64_t t0)
{
	pr->t0 = t0;
	pr->started = true;
}

const struct sockaddr_storage *policy_runner_send_to(const struct policy_runner *pr)
{
	int slot = policy_prepared(&pr->st);

	return slot >= 0 && slot < pr->n_slots ? &pr->slot_addr[slot] : NULL;
}

/* The slot of addr, taking a new one on first sight; -1 when all are used. */
static int slot_of(struct policy_runner *pr, const struct sockaddr_storage *addr)
{
	for (int i = 0; i < pr->n_slots; i++)
		if (addr_same_host(&pr->slot_addr[i], addr))
			return i;
	if (pr->n_slots == POLICY_MAX_PATHS)
		return -1;
	pr->slot_addr[pr->n_slots] = *addr;
	return pr->n_slots++;
}

static int find_slot(const struct policy_runner *pr, const struct sockaddr_storage *addr)
{
	for (int i = 0; i < pr->n_slots; i++)
		if (addr_same_host(&pr->slot_addr[i], addr))
			return i;
	return -1;
}

static int paddrparams(int fd, sctp_assoc_t assoc, const struct sockaddr_storage *addr,
		       struct sctp_paddrparams *pp, bool set)
{
	socklen_t len = sizeof(*pp);

	if (!set) {
		memset(pp, 0, sizeof(*pp));
		pp->spp_assoc_id = assoc;
		/* Packed struct: no pointer to the embedded address is formed. */
		memcpy((unsigned char *)pp + offsetof(struct sctp_paddrparams, spp_address),
		       addr, sizeof(*addr));
		return getsockopt(fd, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, pp, &len);
	}
	return setsockopt(fd, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, pp, sizeof(*pp));
}

/* The guard's faster heartbeat on the candidate; the old interval is kept. */
static int hb_apply(struct policy_runner *pr, int fd, sctp_assoc_t assoc, int slot, uint32_t ms)
{
	struct sctp_paddrparams pp;
	uint32_t flags;

	if (paddrparams(fd, assoc, &pr->slot_addr[slot], &pp, false) != 0)
		return -1;
	memcpy(&flags, (unsigned char *)&pp + offsetof(struct sctp_paddrparams, spp_flags),
	       sizeof(flags));
	memcpy(&pr->hb_saved_ms, (unsigned char *)&pp + offsetof(struct sctp_paddrparams, spp_hbinterval),
	       sizeof(pr->hb_saved_ms));
	pr->hb_saved_disabled = (flags & SPP_HB_DISABLE) != 0;
	pr->hb_slot = slot;
	flags = SPP_HB_ENABLE;
	memcpy((unsigned char *)&pp + offsetof(struct sctp_paddrparams, spp_flags), &flags, sizeof(flags));
	memcpy((unsigned char *)&pp + offsetof(struct sctp_paddrparams, spp_hbinterval), &ms, sizeof(ms));
	return paddrparams(fd, assoc, &pr->slot_addr[slot], &pp, true);
}

static int hb_restore(struct policy_runner *pr, int fd, sctp_assoc_t assoc)
{
	struct sctp_paddrparams pp;
	uint32_t flags;
	int slot = pr->hb_slot;

	if (slot < 0)
		return 0;
	pr->hb_slot = -1;
	if (paddrparams(fd, assoc, &pr->slot_addr[slot], &pp, false) != 0)
		return -1;
	flags = pr->hb_saved_disabled ? SPP_HB_DISABLE : SPP_HB_ENABLE;
	memcpy((unsigned char *)&pp + offsetof(struct sctp_paddrparams, spp_flags), &flags, sizeof(flags));
	memcpy((unsigned char *)&pp + offsetof(struct sctp_paddrparams, spp_hbinterval),
	       &pr->hb_saved_ms, sizeof(pr->hb_saved_ms));
	return paddrparams(fd, assoc, &pr->slot_addr[slot], &pp, true);
}

/* An immediate heartbeat to the guard's candidate, at most every guard_hb
 * ms (to within 1 ms, since rounds come at the sampling interval). */
static void guard_heartbeat(struct policy_runner *pr, int fd, sctp_assoc_t assoc, int64_t now)
{
	struct sctp_paddrparams pp;
	uint32_t flags = SPP_HB_DEMAND;
	int64_t every = (int64_t)pr->st.p.guard_hb_ms * 1000000;

	if (!pr->st.guarding || pr->hb_slot < 0 || every == 0 || now - pr->hb_demanded_ns + 1000000 < every)
		return;
	memset(&pp, 0, sizeof(pp));
	pp.spp_assoc_id = assoc;
	memcpy((unsigned char *)&pp + offsetof(struct sctp_paddrparams, spp_address),
	       &pr->slot_addr[pr->hb_slot], sizeof(pr->slot_addr[pr->hb_slot]));
	memcpy((unsigned char *)&pp + offsetof(struct sctp_paddrparams, spp_flags), &flags, sizeof(flags));
	if (setsockopt(fd, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp, sizeof(pp)) == 0) {
		pr->hb_demanded_ns = now;
		pr->hb_demands++;
	}
}

static const char *slot_text(const struct policy_runner *pr, int slot, char buf[ADDR_STR_MAX])
{
	if (slot < 0 || slot >= pr->n_slots)
		return "-";
	return addr_format(&pr->slot_addr[slot], buf);
}

static void append(char *line, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void append(char *line, size_t cap, const char *fmt, ...)
{
	size_t len = strlen(line);
	va_list ap;

	if (len + 1 >= cap)
		return;
	va_start(ap, fmt);
	vsnprintf(line + len, cap - len, fmt, ap);
	va_end(ap);
}

void policy_runner_round(struct policy_runner *pr, int fd, sctp_assoc_t assoc,
			 struct records *r, const struct policy_path_info *paths, size_t n,
			 const struct sockaddr_storage *primary, bool have_primary)
{
	struct policy_sample samples[POLICY_MAX_PATHS];
	size_t src[POLICY_MAX_PATHS]; /* samples[k] came from paths[src[k]] */
	struct policy_decision d;
	char line[POLICY_LINE_MAX], a[ADDR_STR_MAX], b[ADDR_STR_MAX], c[ADDR_STR_MAX];
	const char *decision;
	size_t ns = 0;
	int before = -1, after;
	int64_t t;
	double per_jiffy_ms = 1000.0 / (double)pr->st.p.hz;

	for (size_t i = 0; i < n && ns < POLICY_MAX_PATHS; i++) {
		int slot = slot_of(pr, &paths[i].addr);

		if (slot < 0)
			continue;
		src[ns] = i;
		samples[ns].slot = slot;
		samples[ns].srtt_ms = paths[i].srtt_raw * per_jiffy_ms;
		samples[ns].rto_ms = paths[i].rto_ms;
		samples[ns].active = paths[i].state == SCTP_ACTIVE;
		samples[ns].has_signal = false;
		ns++;
	}
	if (have_primary)
		before = find_slot(pr, primary);
	t = now_ns();
	for (size_t k = 0; k < ns && pr->trace != NULL && pr->started; k++)
		samples[k].has_signal = sigtrace_at(pr->trace, &paths[src[k]].addr, t - pr->t0,
						    &samples[k].signal_dbm);
	policy_step(&pr->st, t, samples, ns, before, &d);
	if (d.action == POLICY_STAY) {
		guard_heartbeat(pr, fd, assoc, t);
		return;
	}

	decision = policy_action_name(d.action);
	after = before;
	line[0] = '\0';
	if (d.action == POLICY_SWITCH) {
		if (sockopts_set_primary(fd, assoc, &pr->slot_addr[d.to]) == 0) {
			after = d.to;
		} else {
			decision = "switch-failed";
			append(d.reason, sizeof(d.reason), " (%s)", strerror(errno));
		}
	}
	if (d.hb_slot >= 0 && d.hb_restore) {
		append(d.reason, sizeof(d.reason), " after %u hb", pr->hb_demands);
		if (hb_restore(pr, fd, assoc) != 0)
			append(d.reason, sizeof(d.reason), " hb restore failed (%s)", strerror(errno));
	} else if (d.hb_slot >= 0) {
		if (hb_apply(pr, fd, assoc, d.hb_slot, d.hb_ms) != 0) {
			append(d.reason, sizeof(d.reason), " hb failed (%s)", strerror(errno));
		} else {
			append(d.reason, sizeof(d.reason), " hb %ums", (unsigned)d.hb_ms);
			pr->hb_demanded_ns = INT64_MIN / 2;
			pr->hb_demands = 0;
			guard_heartbeat(pr, fd, assoc, t);
		}
	}
	snprintf(line, sizeof(line), "%s\t%s\t%s\t%s\t%s", decision, slot_text(pr, before, a),
		 slot_text(pr, after, b), slot_text(pr, d.to, c), d.reason);
	for (size_t i = 0; i < ns; i++) {
		const struct policy_path *pp = &pr->st.path[samples[i].slot];

		append(line, sizeof(line), "\t%s,%s,%.1f,%.0f,%u",
		       addr_format(&pr->slot_addr[samples[i].slot], a), path_state_name(paths[src[i]].state),
		       samples[i].srtt_ms, samples[i].rto_ms, (unsigned)paths[src[i]].cwnd);
		if (pr->st.p.kind == POLICY_PREDICTIVE && pp->seen)
			append(line, sizeof(line), ",%.1f,%.1f", pp->ema_short, pp->ema_long);
		else
			append(line, sizeof(line), ",-,-");
		if (pr->st.p.kind == POLICY_SIGNAL && samples[i].has_signal)
			append(line, sizeof(line), ",%.1f", samples[i].signal_dbm);
		else if (pr->st.p.kind == POLICY_SIGNAL)
			append(line, sizeof(line), ",-");
	}
	records_policy(r, t, line);
}
