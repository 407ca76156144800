/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what the `untorn` subcommands share: exit codes, error output,
 * and a small JSON writer.
 */
#ifndef UNTORN_CLI_H
#define UNTORN_CLI_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#define EXIT_OK 0
#define EXIT_CORRUPT 1 /* check: bad pages found */
#define EXIT_ERROR 2 /* bad usage, bad input, I/O error */

int cmd_init(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_put(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_delete(int argc, char **argv);
int cmd_txn(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_bench_scan(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_guards(int argc, char **argv);

struct ut_engine;
struct ut_engine_opts;
struct ut_err;

/*
 * --wait SECONDS, taken by every command that opens a store: how long to
 * wait for a store another process holds (0, the default: refuse at once
 * with the holder named).  CLI_OPT_WAIT goes in a command's option table,
 * 'W' to cli_parse_wait.
 */
#define CLI_OPT_WAIT                                 \
	{                                            \
		"wait", required_argument, NULL, 'W' \
	}
#define CLI_WAIT_HELP                                                           \
	"  --wait SECONDS  wait up to SECONDS for a store another process is\n" \
	"                  using (default: refuse at once, naming it)\n"
extern unsigned cli_wait_ms;
int cli_parse_wait(const char *cmd, const char *arg);

/* A size option (512, 16k, 8M: engine/base/parse.c) in [min, max]; 0,
 * or EXIT_ERROR with the usage error printed. */
int cli_parse_size(const char *cmd, const char *what, const char *arg,
		   uint64_t min, uint64_t max, uint64_t *out);
/* A count (rows, threads, seconds): digits only, no unit, in
 * [min, max]; 0, or EXIT_ERROR with the usage error printed. */
int cli_parse_count(const char *cmd, const char *what, const char *arg,
		    uint64_t min, uint64_t max, uint64_t *out);
/* A key (KEY, --start): a whole number from 0 to max, refused in the
 * words of a key; 0, or EXIT_ERROR with the usage error printed. */
int cli_parse_key(const char *cmd, const char *what, const char *arg,
		  uint64_t max, uint64_t *out);
/*
 * Ctrl-C in a long write (load): cli_catch_interrupt(), once the store is
 * open, makes the first SIGINT set cli_interrupted, for the loop to stop
 * at the next row and close the store cleanly (a second one kills, as
 * before).  cli_interrupt_exit() then says how many rows are in, and
 * returns the exit status, 130.
 */
extern volatile sig_atomic_t cli_interrupted;
int cli_catch_interrupt(void);
int cli_interrupt_exit(const char *cmd, uint64_t done, uint64_t total);
/* The one line of an engine error (falls back to strerror). */
int cli_fail_err(const struct ut_err *err, int ret);
/* Opens the engine, saying on stderr when it recovered from a crash. */
int cli_engine_open(const char *dir, const struct ut_engine_opts *o,
		    struct ut_engine **engp);
int cli_engine_close(struct ut_engine *eng);
/* Parses "CMD [--json] [--wait S] DIR": returns 0 with *dir set, 1 after printing
 * help, or EXIT_ERROR after a usage message. */
int cli_parse_json_dir(const char *cmd, const char *help, int argc, char **argv,
		       int *as_json, const char **dir);
/* Installs the fault UNTORN_INJECT asks for (see inject.c). */
void cli_inject_from_env(void);

/* Prints "untorn: <msg>" on stderr and returns EXIT_ERROR. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* For bad usage: the message, then "try 'untorn CMD --help'". */
/* getopt_long's '?': the unknown option, or the one missing its value,
 * named in one line (opterr is 0); returns EXIT_ERROR. */
int cli_bad_option(const char *cmd, char **argv);
int cli_usage_fail(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct json {
	FILE *out;
	int depth;
	int need_comma;
};

void json_begin(struct json *j, FILE *out);
void json_end(struct json *j);
void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);
void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, uint64_t val);
void json_f64(struct json *j, const char *key, double val);
void json_bool(struct json *j, const char *key, int val);

#endif
