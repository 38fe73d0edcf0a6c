/* Reading a text file of records line by line, for the agent's input files
 * (schedules, signal traces): lines checked rather than trusted, errors as
 * one FILE:LINE: message. */
#ifndef SCTPBENCH_LINEFILE_H
#define SCTPBENCH_LINEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum line_result { LINE_OK, LINE_EOF, LINE_TOO_LONG, LINE_NUL };

/* The next line into buf without its newline (a last line may lack one).
 * Character by character, so a NUL byte is seen rather than silently
 * ending the line early, and an endless line costs no memory. */
enum line_result linefile_next(FILE *f, char *buf, size_t size);

/* Writes "NAME:LINE: WHY" (or "NAME: WHY" for line 0) into err; returns -1. */
int linefile_fail(char *err, size_t errlen, const char *name, size_t line, const char *why);

/* A blank between fields: space, tab, CR, VT, FF. */
bool linefile_blank(char c);

#endif
