/* Multipath scheduling on usrsctp (common/sched_run.h): every peer address
 * described with upaths_describe before each message; the message then
 * goes to the chosen address with SCTP_ADDR_OVER (ustack_send).
 *
 * What usrsctp allows with it: CMT off (CMT spreads the chunks itself),
 * no hz= (SRTT comes in ms), and the first-come stream scheduler.  The
 * others (default, round-robin, round-robin-packet, priority,
 * fair-bandwidth) look for a stream whose next message goes to the path
 * being filled, walking the stream wheel until they are back at the last
 * stream served; when none is (that stream emptied and left the wheel) the
 * walk never ends: usrsctp 0.9.5.0 spins with the association locked (seen
 * in the guest with static-stream over two streams; RECORDS.md).
 */
#ifndef SCTPBENCH_USRSCTP_SCHED_H
#define SCTPBENCH_USRSCTP_SCHED_H

#include "common/sched_run.h"
#include "stack.h"

/* Checks a --scheduler against the stack's options and, with one other
 * than primary and no --stream-scheduler, asks for first-come.  -1
 * (one line printed) when the pair has no meaning or would hang. */
int usched_prepare(const struct sched_params *sp, struct ustack_params *p);

/* The address the next message goes to; NULL to leave the path to the
 * stack (no active path). */
const struct sockaddr_storage *usched_choose(struct sched_runner *sr, struct ustack_sock *s, int64_t now,
					     unsigned stream, bool unordered, uint64_t size);

#endif
