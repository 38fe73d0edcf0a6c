#include "udpgen.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct udpgen_config cfg;
	FILE *records;
	int status;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("sctpbench-udpgen %s\n", UDPGEN_REVISION);
		return 0;
	}
	if (udpgen_parse(argc, argv, &cfg, stderr) != 0)
		return 2;
	records = fopen(cfg.records, "w");
	if (!records) {
		perror(cfg.records);
		return 1;
	}
	status = cfg.mode == UDPGEN_SEND ? udpgen_send(&cfg, records) : udpgen_sink(&cfg, records);
	return fclose(records) == 0 ? status : 1;
}
