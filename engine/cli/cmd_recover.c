// SPDX-License-Identifier: MIT
/*
 * cmd_recover.c - `untorn recover DIR`: run crash recovery explicitly and
 * report it: pages restored from the doublewrite buffer, redo scanned and
 * applied, where and why the log ended, pages read and in how many
 * submissions.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <untorn/engine.h>
#include "cli.h"

static const char recover_help[] =
	"usage: untorn recover DIR [--reads sync|batched] [--accept-log-loss] [--json]\n"
	"                          [--wait S]\n"
	"\n"
	"Opens the store the way every command does, which restores torn pages\n"
	"from the doublewrite buffer and applies the redo log from the last\n"
	"checkpoint, then shuts it down cleanly.  Reports what it did.  Every other\n"
	"command that opens a store (put, get, load, bench) recovers the same way,\n"
	"automatically, and says so on stderr.\n"
	"\n"
	"  --reads batched  read the pages redo touches in sorted batches of up to 512\n"
	"                   (a quarter of the pool), one io_uring submit each, holes\n"
	"                   of up to 16 pages read through (default)\n"
	"  --reads sync     one page per read, for comparison\n"
	"  --accept-log-loss  when the redo log is damaged and sound log follows\n"
	"                   the damage (committed transactions after it), recover\n"
	"                   up to the damage instead of refusing; say what was lost\n"
	"\n" CLI_WAIT_HELP;

static void report_text(const char *dir, const struct ut_recovery_report *r)
{
	uint64_t i;

	for (i = 0; i < r->guard_restored && i < 64; i++)
		printf("Recovered page %u from %s\n", r->restored[i],
		       r->restored_from);
	if (r->guard_restored > 64)
		printf("... and %llu more pages\n",
		       (unsigned long long)(r->guard_restored - 64));
	printf("%s: %s\n", dir,
	       r->needed ? "recovered from a crash" :
			   "was shut down cleanly: no redo to apply");
	printf("  checkpoint LSN %llu, redo up to LSN %llu (%s)\n",
	       (unsigned long long)r->checkpoint_lsn,
	       (unsigned long long)r->end_lsn, r->stop_reason);
	printf("  %llu groups, %llu records, %llu bytes; %llu applied, %llu already on disk\n",
	       (unsigned long long)r->groups, (unsigned long long)r->records,
	       (unsigned long long)r->redo_bytes,
	       (unsigned long long)r->records_applied,
	       (unsigned long long)r->records_skipped);
	if (r->gap_lsn)
		printf("  WARNING: the log stops at an unwritten block at LSN %llu with sound log after it up to LSN %llu, NOT applied: the tail of an interrupted write, or zeroed damage (they cannot be told apart); if transactions were acknowledged after LSN %llu, restore from a backup\n",
		       (unsigned long long)r->gap_lsn,
		       (unsigned long long)r->gap_sound_after_lsn,
		       (unsigned long long)r->gap_lsn);
	if (r->damage_lsn && r->sound_after_lsn)
		printf("  the log is damaged at LSN %llu; sound log up to LSN %llu was NOT applied (--accept-log-loss): transactions committed in it are lost\n",
		       (unsigned long long)r->damage_lsn,
		       (unsigned long long)r->sound_after_lsn);
	else if (r->damage_lsn)
		printf("  the log is damaged at LSN %llu where it ends (--accept-log-loss): transactions committed in the damaged blocks are lost\n",
		       (unsigned long long)r->damage_lsn);
	printf("  %llu pages read in %llu submissions",
	       (unsigned long long)r->pages_read,
	       (unsigned long long)r->read_submits);
	if (r->guard)
		printf("; %s: %llu copies checked, %llu pages restored",
		       r->guard, (unsigned long long)r->guard_checked,
		       (unsigned long long)r->guard_restored);
	printf("; %.3f s\n", r->seconds);
}

static void report_json(const char *dir, const struct ut_recovery_report *r)
{
	struct json j;
	uint64_t i;

	json_begin(&j, stdout);
	json_str(&j, "store", dir);
	json_bool(&j, "recovered", r->needed);
	json_u64(&j, "checkpoint_lsn", r->checkpoint_lsn);
	json_u64(&j, "end_lsn", r->end_lsn);
	json_str(&j, "log_end", r->stop_reason);
	json_u64(&j, "log_damage_lsn", r->damage_lsn);
	json_u64(&j, "log_lost_up_to_lsn", r->sound_after_lsn);
	json_u64(&j, "log_gap_lsn", r->gap_lsn);
	json_u64(&j, "log_gap_sound_up_to_lsn", r->gap_sound_after_lsn);
	json_u64(&j, "groups", r->groups);
	json_u64(&j, "records", r->records);
	json_u64(&j, "redo_bytes", r->redo_bytes);
	json_u64(&j, "records_applied", r->records_applied);
	json_u64(&j, "records_skipped", r->records_skipped);
	json_u64(&j, "pages_read", r->pages_read);
	json_u64(&j, "read_submits", r->read_submits);
	/* pages the guard's restore phase compared with its copy and
	 * restored from it; dblwr_* are their old names, kept for one
	 * release */
	json_u64(&j, "copy_pages_checked", r->guard_checked);
	json_u64(&j, "copy_pages_restored", r->guard_restored);
	json_u64(&j, "dblwr_checked", r->guard_checked);
	json_u64(&j, "dblwr_restored", r->guard_restored);
	json_arr_open(&j, "restored_pages");
	for (i = 0; i < r->guard_restored && i < 64; i++)
		json_u64(&j, NULL, r->restored[i]);
	json_arr_close(&j);
	json_f64(&j, "seconds", r->seconds);
	json_end(&j);
}

int cmd_recover(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "reads", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "accept-log-loss", no_argument, NULL, 'a' },
		CLI_OPT_WAIT,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct ut_recovery_report rep;
	struct ut_engine_opts o;
	struct ut_engine *eng;
	struct ut_err err = { "" };
	int c, as_json = 0, ret;

	ut_engine_opts_default(&o);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (strcmp(optarg, "sync") && strcmp(optarg, "batched"))
				return cli_usage_fail("recover",
						      "--reads is sync or batched, not '%s'",
						      optarg);
			o.recovery_sync_reads = !strcmp(optarg, "sync");
			break;
		case 'j':
			as_json = 1;
			break;
		case 'a':
			o.accept_log_loss = 1;
			break;
		case 'W':
			if (cli_parse_wait("recover", optarg))
				return EXIT_ERROR;
			break;
		case 'h':
			fputs(recover_help, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("recover", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_fail("recover", "give exactly one DIR");
	ret = ut_engine_open(argv[optind], &o, &eng, &rep, &err);
	if (ret)
		return cli_fail_err(&err, ret);
	if (as_json)
		report_json(argv[optind], &rep);
	else
		report_text(argv[optind], &rep);
	return cli_engine_close(eng);
}
