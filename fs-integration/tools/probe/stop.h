/* SPDX-License-Identifier: MIT */
/*
 * stop.h - SIGINT or SIGTERM to untorn-fscheck while it runs a child (the
 * measuring script, bpftrace) stops the child too: the signal is passed
 * on, the child stops what it started and removes what it made, and the
 * program then ends by that signal (status 130 or 143 in a shell), as it
 * would have without a child.
 */
#ifndef UNTORN_STOP_H
#define UNTORN_STOP_H

#include <sys/types.h>

/* catches SIGINT and SIGTERM (a blocking call returns EINTR); 0 or -errno */
int ut_stop_watch(void);

/* the child a signal goes on to, 0 for none; one already caught goes now */
void ut_stop_pass_to(pid_t child);

/* the signal caught, or 0 */
int ut_stop_signal(void);

/* waitpid() that carries on through the signals caught; -errno on error */
int ut_stop_waitpid(pid_t child, int *status);

/* with a signal caught: ends the program by it; else returns */
void ut_stop_end(void);

#endif
