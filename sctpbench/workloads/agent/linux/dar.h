/* Dynamic address reconfiguration (RFC 5061) on a live association: the
 * control commands `addaddr`, `deladdr` and `peerprimary`.
 *
 * Each changes what the endpoint tells its peer with ASCONF chunks: the
 * kernel sends them only where the association negotiated ASCONF (Linux
 * 6.1: net.sctp.addip_enable=1 and net.sctp.auth_enable=1 at both ends, or
 * addip_noauth_enable=1 instead of AUTH; RECORDS.md, "Kernel notes").
 */
#ifndef SCTPBENCH_DAR_H
#define SCTPBENCH_DAR_H

#include "common/control.h"
#include "common/records.h"
#include "sctpapi.h"

#include <stdint.h>

/* Carries out one of CONTROL_ADDADDR, CONTROL_DELADDR, CONTROL_PEERPRIMARY
 * with the address text `arg`: writes its `event` record and answers
 * `ok WORD T` or `err WORD TEXT` on stdout.  The association keeps running
 * either way. */
void dar_command(int fd, sctp_assoc_t assoc, enum control_kind kind, const char *arg,
		 struct records *rec);

/* The `param asconf_supported` record: 1 if the association negotiated
 * ASCONF with its peer (SCTP_ASCONF_SUPPORTED on the association, the
 * kernel's peer.asconf_capable), 0 if not, `unsupported` if the kernel
 * has no such option. */
void dar_write_params(int fd, sctp_assoc_t assoc, struct records *r, int64_t t);

#endif
