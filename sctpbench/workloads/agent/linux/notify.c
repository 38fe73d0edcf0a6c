#include "notify.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

static const char *assoc_state_name(unsigned state, char *buf, size_t len)
{
	switch (state) {
	case SCTP_COMM_UP: return "COMM_UP";
	case SCTP_COMM_LOST: return "COMM_LOST";
	case SCTP_RESTART: return "RESTART";
	case SCTP_SHUTDOWN_COMP: return "SHUTDOWN_COMP";
	case SCTP_CANT_STR_ASSOC: return "CANT_STR_ASSOC";
	default:
		/* Keep newer kernels' states visible instead of dropping them. */
		snprintf(buf, len, "STATE_%u", state);
		return buf;
	}
}

static const char *addr_state_name(int state, char *buf, size_t len)
{
	switch (state) {
	case SCTP_ADDR_AVAILABLE: return "ADDR_AVAILABLE";
	case SCTP_ADDR_UNREACHABLE: return "ADDR_UNREACHABLE";
	case SCTP_ADDR_REMOVED: return "ADDR_REMOVED";
	case SCTP_ADDR_ADDED: return "ADDR_ADDED";
	case SCTP_ADDR_MADE_PRIM: return "ADDR_MADE_PRIM";
	case SCTP_ADDR_CONFIRMED: return "ADDR_CONFIRMED";
	case SCTP_ADDR_POTENTIALLY_FAILED: return "ADDR_POTENTIALLY_FAILED";
	default:
		snprintf(buf, len, "ADDR_STATE_%d", state);
		return buf;
	}
}

static void on_assoc_change(const unsigned char *buf, size_t len, int64_t t,
			    struct records *r, struct notify_info *out)
{
	struct sctp_assoc_change sac;
	char name[24];

	if (len < offsetof(struct sctp_assoc_change, sac_info))
		return;
	memset(&sac, 0, sizeof(sac));
	memcpy(&sac, buf, offsetof(struct sctp_assoc_change, sac_info));
	records_assoc(r, t, assoc_state_name(sac.sac_state, name, sizeof(name)),
		      sac.sac_error, sac.sac_outbound_streams, sac.sac_inbound_streams);
	out->assoc_id = sac.sac_assoc_id;
	out->error = sac.sac_error;
	switch (sac.sac_state) {
	case SCTP_COMM_UP:
		out->kind = NOTIFY_COMM_UP;
		break;
	case SCTP_RESTART:
		out->kind = NOTIFY_RESTART;
		break;
	case SCTP_COMM_LOST:
	case SCTP_CANT_STR_ASSOC:
		out->kind = NOTIFY_ASSOC_LOST;
		break;
	case SCTP_SHUTDOWN_COMP:
		out->kind = NOTIFY_SHUTDOWN_COMP;
		break;
	default:
		break;
	}
}

/* Returns the address's new state, or -1 for a notification too short. */
static int on_paddr_change(const unsigned char *buf, size_t len, int64_t t,
			   struct records *r)
{
	struct sockaddr_storage addr;
	int state, error;
	char name[24];

	/* The struct is packed: copy fields out by offset. */
	if (len < sizeof(struct sctp_paddr_change))
		return -1;
	memcpy(&addr, buf + offsetof(struct sctp_paddr_change, spc_aaddr), sizeof(addr));
	memcpy(&state, buf + offsetof(struct sctp_paddr_change, spc_state), sizeof(state));
	memcpy(&error, buf + offsetof(struct sctp_paddr_change, spc_error), sizeof(error));
	records_addr(r, t, &addr, addr_state_name(state, name, sizeof(name)), error);
	return state;
}

/* The agent tags every message with its sequence number as the send
 * context, which the kernel hands back here, so the failed message can be
 * named even when the failed piece is a later fragment. */
static void on_send_failed_event(const unsigned char *buf, size_t len, int64_t t,
				 struct records *r)
{
	struct sctp_send_failed_event ev;

	if (len < offsetof(struct sctp_send_failed_event, ssf_data))
		return;
	memcpy(&ev, buf, offsetof(struct sctp_send_failed_event, ssf_data));
	records_sendfail(r, t, ev.ssf_error, true, ev.ssfe_info.snd_context);
}

/* Legacy form, sent instead of the above only by kernels without
 * SCTP_SEND_FAILED_EVENT; kept so such a kernel still gets records. */
static void on_send_failed(const unsigned char *buf, size_t len, int64_t t,
			   struct records *r)
{
	struct sctp_send_failed ev;

	if (len < offsetof(struct sctp_send_failed, ssf_data))
		return;
	memcpy(&ev, buf, offsetof(struct sctp_send_failed, ssf_data));
	records_sendfail(r, t, ev.ssf_error, true, ev.ssf_info.sinfo_context);
}

static void on_remote_error(const unsigned char *buf, size_t len, int64_t t,
			    struct records *r)
{
	struct sctp_remote_error ev;

	if (len < offsetof(struct sctp_remote_error, sre_data))
		return;
	memcpy(&ev, buf, offsetof(struct sctp_remote_error, sre_data));
	records_remote_error(r, t, ntohs(ev.sre_error));
}

void notify_handle(const unsigned char *buf, size_t len, int64_t t,
		   struct records *r, struct notify_info *out)
{
	uint16_t type;

	out->kind = NOTIFY_OTHER;
	out->assoc_id = 0;
	out->error = 0;
	if (len < sizeof(type))
		return;
	memcpy(&type, buf, sizeof(type));
	switch (type) {
	case SCTP_ASSOC_CHANGE:
		on_assoc_change(buf, len, t, r, out);
		break;
	case SCTP_PEER_ADDR_CHANGE: {
		int state = on_paddr_change(buf, len, t, r);

		if (state == SCTP_ADDR_ADDED || state == SCTP_ADDR_REMOVED)
			out->kind = NOTIFY_PEERS_CHANGED;
		break;
	}
	case SCTP_SEND_FAILED_EVENT:
		on_send_failed_event(buf, len, t, r);
		break;
	case SCTP_SEND_FAILED:
		on_send_failed(buf, len, t, r);
		break;
	case SCTP_REMOTE_ERROR:
		on_remote_error(buf, len, t, r);
		break;
	case SCTP_SHUTDOWN_EVENT:
		records_shutdown(r, t);
		out->kind = NOTIFY_PEER_SHUTDOWN;
		break;
	case SCTP_SENDER_DRY_EVENT:
		out->kind = NOTIFY_SENDER_DRY;
		break;
	default:
		break;
	}
}
