/* SCTP socket options: the ones an experiment may set before the
 * association exists, the notifications the agent depends on, and the
 * read-back of what the association actually ended up with.
 *
 * Only options given on the command line are touched: an experiment that
 * varies a sysctl must see the kernel's value, not a default of ours.
 */
#ifndef SCTPBENCH_SOCKOPTS_H
#define SCTPBENCH_SOCKOPTS_H

#include "common/options.h"
#include "common/records.h"
#include "sctpapi.h"

#include <stdbool.h>
#include <stdint.h>

/* Sets the given options on an unconnected socket and reads each back;
 * -1 (message printed) if the kernel refused or changed a value. */
int sockopts_apply(int fd, const struct sock_opts *o);
/* Notifications and per-message receive info (stream number). */
int sockopts_subscribe(int fd);
/* Asks for SCTP_SENDER_DRY_EVENT, which the kernel sends at once if
 * nothing is queued or in flight and otherwise when the last byte is
 * acknowledged. */
int sockopts_want_sender_dry(int fd, sctp_assoc_t assoc);

/* PR-SCTP (RFC 3758) for the associations this socket will have: sets
 * SCTP_PR_SUPPORTED and reads it back; -1 (message printed) if the kernel
 * refused.  Whether an association may use it is the peer's word too:
 * sockopts_pr_supported tells, once it is up. */
int sockopts_want_prsctp(int fd);
/* 1 if the association negotiated PR-SCTP (the kernel's
 * peer.prsctp_capable), 0 if not, -1 (errno set) if the kernel cannot say. */
int sockopts_pr_supported(int fd, sctp_assoc_t assoc);
/* Messages the association abandoned under PR-SCTP (every policy): not
 * yet sent, and sent at least once.  -1 (errno set) if unavailable. */
int sockopts_pr_abandoned(int fd, sctp_assoc_t assoc, uint64_t *unsent, uint64_t *sent);

int sockopts_status(int fd, sctp_assoc_t assoc, struct sctp_status *st);
int sockopts_set_primary(int fd, sctp_assoc_t assoc, const struct sockaddr_storage *addr);
/* Writes the `param` records; -1 (message printed) on a failed read. */
int sockopts_write_params(int fd, sctp_assoc_t assoc, struct records *r, int64_t t);

#endif
