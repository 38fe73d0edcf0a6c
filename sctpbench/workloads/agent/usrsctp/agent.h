/* sctpbench-agent-usrsctp's two roles, on the usrsctp socket layer
 * (stack.h): the message workload's client and server, writing the same
 * records as the kernel agent (RECORDS.md, "The usrsctp agent"). */
#ifndef SCTPBENCH_USRSCTP_AGENT_H
#define SCTPBENCH_USRSCTP_AGENT_H

#include "common/config.h"
#include "common/records.h"
#include "stack.h"

int uagent_client_run(const struct config *cfg, const struct ustack_params *p,
		      struct records *rec);
int uagent_server_run(const struct config *cfg, const struct ustack_params *p,
		      struct records *rec);
/* AF_INET6 if any address is IPv6, else AF_INET (as config_family). */
int uagent_family(const struct config *cfg);
/* Writes `assoc`, `param` and `peer` records at COMM_UP; -1 on a failed read. */
int uagent_comm_up(struct ustack_sock *s, const struct ustack_rx *rx, struct records *rec);
/* `addr` records for a peer address change. */
void uagent_addr(const struct ustack_rx *rx, struct records *rec);

#endif
