#include "path_state.h"

#include "sctpapi.h"

const char *path_state_name(int32_t state)
{
	switch (state) {
	case SCTP_ACTIVE: return "ACTIVE";
	case SCTP_INACTIVE: return "INACTIVE";
	case SCTP_PF: return "PF";
	case SCTP_UNCONFIRMED: return "UNCONFIRMED";
	default: return "UNKNOWN";
	}
}
