// SPDX-License-Identifier: MIT
/*
 * cmd_verify.c - `untorn verify DIR [--acks FILE]`: after a crash and
 * recovery, is every acknowledged commit there with its last value, is
 * every self-checking value (load's, bench's) intact, is every
 * transaction whole (bench's linked rows), and is the tree in key order?
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <untorn/engine.h>
#include "acks.h"
#include "cli.h"
#include "rowgen.h"

static const char verify_help[] =
	"usage: untorn verify DIR [--acks FILE] [--json] [--wait S]\n"
	"\n"
	"Opens the store (recovering it if needed) and checks that a full scan\n"
	"is in key order and that every value in the self-checking format that\n"
	"`load` and `bench` write (key, version, writer, a hash of it all) is\n"
	"intact.  A value not in that format (`put`, `load --from`, a program of\n"
	"your own) is counted as not checkable, not as damaged: `untorn check`\n"
	"verifies every block of every page whatever the values are.\n"
	"A row bench wrote in a transaction of several writes names the row the\n"
	"same transaction wrote to its next key: that one (or a later version of\n"
	"it) must be there too, or the transaction was applied in half.\n"
	"With --acks, FILE holds the \"KEY VERSION\" lines `bench write --ack-fd`\n"
	"wrote after each commit returned: every one must be present with that\n"
	"version or a later one.  exit status: 0 all there, 1 lost or damaged\n"
	"rows, 2 error (an ack file that cannot be read or has a malformed line).\n"
	"\n" CLI_WAIT_HELP;

/* A linked row: key's row says next_key's must be at next_version or
 * later. */
struct link {
	uint64_t key, next_key, next_version;
};

struct verify_state {
	uint64_t rows, disorder, checked, damaged, other, last;
	struct link *links;
	size_t n_links, cap_links;
	int no_memory;
};

static void link_add(struct verify_state *s, uint64_t key, uint64_t next_key,
		     uint64_t next_version)
{
	struct link *grown;
	size_t cap;

	if (s->n_links == s->cap_links) {
		cap = s->cap_links ? 2 * s->cap_links : 4096;
		grown = realloc(s->links, cap * sizeof(*grown));
		if (!grown) {
			s->no_memory = 1;
			return;
		}
		s->links = grown;
		s->cap_links = cap;
	}
	s->links[s->n_links++] = (struct link){ key, next_key, next_version };
}

static int verify_row(uint64_t key, const void *val, uint32_t len, void *user)
{
	struct verify_state *s = user;
	uint64_t ver, next_key, next_ver;

	if (s->rows && key <= s->last)
		s->disorder++;
	if (!row_claims(val, len, key)) {
		s->other++;
	} else {
		s->checked++;
		if (row_check(val, len, key, &ver))
			s->damaged++;
		else if (row_linked(val, len, &next_key, &next_ver) &&
			 next_key != key)
			link_add(s, key, next_key, next_ver);
	}
	s->last = key;
	s->rows++;
	return 0;
}

/* --acks FILE into a: 0, or EXIT_ERROR having said why in one line. */
static int read_acks(const char *path, struct acks *a, unsigned *cut)
{
	uint64_t bad_line;
	FILE *f;
	int ret;

	f = fopen(path, "r");
	if (!f)
		return cli_fail("--acks %s: %s; give the file bench wrote its acknowledgements to",
				path, strerror(errno));
	ret = acks_read(a, f, &bad_line, cut);
	fclose(f);
	if (ret == -EBADMSG)
		return cli_fail("--acks %s: line %llu is not \"KEY VERSION\" (two decimal numbers, version >= 1); give the file bench write --ack-fd wrote",
				path, (unsigned long long)bad_line);
	if (ret == -ENOMEM)
		return cli_fail("--acks %s: out of memory; verify a smaller run",
				path);
	if (ret)
		return cli_fail("--acks %s: %s; give the file bench wrote its acknowledgements to",
				path, strerror(-ret));
	return 0;
}

/* 0 with *ver the version of key's row when it is there, whole. */
static int row_version(struct ut_engine *eng, uint64_t key, uint64_t *ver)
{
	static unsigned char val[65536];
	uint32_t len;

	if (ut_get(eng, key, val, sizeof(val), &len))
		return -ENOENT;
	return row_check(val, len, key, ver);
}

/* Links whose row is missing or older than the link says: each a
 * transaction some of whose writes survived and some not. */
static uint64_t count_halves(struct ut_engine *eng,
			     const struct verify_state *s)
{
	uint64_t halves = 0, ver;
	size_t i;

	for (i = 0; i < s->n_links; i++) {
		const struct link *l = &s->links[i];

		if (!row_version(eng, l->next_key, &ver) &&
		    ver >= l->next_version)
			continue;
		if (halves++ < 10)
			fprintf(stderr,
				"untorn: half a transaction: key %llu is there, but not key %llu at version %llu, written with it\n",
				(unsigned long long)l->key,
				(unsigned long long)l->next_key,
				(unsigned long long)l->next_version);
	}
	return halves;
}

static uint64_t count_lost(struct ut_engine *eng, const struct acks *a,
			   uint64_t *stale)
{
	uint64_t lost = 0, ver;
	size_t i;

	*stale = 0;
	for (i = 0; i < a->cap; i++) {
		if (!a->ver[i])
			continue;
		if (row_version(eng, a->key[i], &ver)) {
			if (lost++ < 10)
				fprintf(stderr,
					"untorn: lost: key %llu (acknowledged version %llu)\n",
					(unsigned long long)a->key[i],
					(unsigned long long)a->ver[i]);
		} else if (ver < a->ver[i]) {
			if ((*stale)++ < 10)
				fprintf(stderr,
					"untorn: stale: key %llu has version %llu, version %llu was acknowledged\n",
					(unsigned long long)a->key[i],
					(unsigned long long)ver,
					(unsigned long long)a->ver[i]);
		}
	}
	return lost;
}

int cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "acks", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		CLI_OPT_WAIT,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct verify_state s = { 0 };
	struct ut_engine_opts o;
	struct ut_engine *eng;
	struct acks a = { 0 };
	const char *acks_path = NULL;
	uint64_t lost = 0, stale = 0, halves;
	int c, as_json = 0, bad, scan_ret;
	unsigned cut = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			acks_path = optarg;
			break;
		case 'j':
			as_json = 1;
			break;
		case 'W':
			if (cli_parse_wait("verify", optarg))
				return EXIT_ERROR;
			break;
		case 'h':
			fputs(verify_help, stdout);
			return EXIT_OK;
		default:
			return cli_bad_option("verify", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage_fail("verify", "give exactly one DIR");
	if (acks_path && read_acks(acks_path, &a, &cut)) {
		acks_free(&a);
		return EXIT_ERROR;
	}
	if (cut)
		fprintf(stderr,
			"untorn: --acks %s: its last line has no newline (cut while being written): skipped\n",
			acks_path);
	ut_engine_opts_default(&o);
	if (cli_engine_open(argv[optind], &o, &eng)) {
		acks_free(&a);
		return EXIT_ERROR;
	}
	scan_ret = ut_scan(eng, 0, verify_row, &s);
	if (scan_ret < 0)
		/* e.g. -EUCLEAN: a parent and child whose levels disagree */
		fprintf(stderr,
			"untorn: %s: the tree is damaged: the full scan stopped after %llu rows: %s; the rows below are what could be read\n",
			argv[optind], (unsigned long long)s.rows,
			strerror(-scan_ret));
	if (acks_path)
		lost = count_lost(eng, &a, &stale);
	halves = count_halves(eng, &s);
	if (s.no_memory)
		fprintf(stderr,
			"untorn: out of memory for the transactions' links: only %zu of them checked\n",
			s.n_links);
	bad = lost || stale || halves || s.disorder || s.damaged ||
	      scan_ret < 0;
	if (as_json) {
		struct json j;

		json_begin(&j, stdout);
		json_str(&j, "store", argv[optind]);
		json_u64(&j, "rows", s.rows);
		json_str(&j, "scan_error",
			 scan_ret < 0 ? strerror(-scan_ret) : "");
		json_u64(&j, "out_of_order", s.disorder);
		json_u64(&j, "values_checked", s.checked);
		json_u64(&j, "damaged_values", s.damaged);
		json_u64(&j, "values_not_checkable", s.other);
		json_u64(&j, "transaction_links", s.n_links);
		json_u64(&j, "half_transactions", halves);
		json_u64(&j, "acknowledged", a.n);
		json_u64(&j, "lost", lost);
		json_u64(&j, "stale", stale);
		json_bool(&j, "ok", !bad);
		json_end(&j);
	} else {
		printf("%s: %llu rows, %llu out of order; %llu values in load/bench's self-checking format checked: %llu damaged; %llu other values not checkable (untorn check verifies their pages)",
		       argv[optind], (unsigned long long)s.rows,
		       (unsigned long long)s.disorder,
		       (unsigned long long)s.checked,
		       (unsigned long long)s.damaged,
		       (unsigned long long)s.other);
		if (s.n_links)
			printf("; %zu links between a transaction's rows: %llu half transactions",
			       s.n_links, (unsigned long long)halves);
		if (acks_path)
			printf("; %zu acknowledged keys: %llu lost, %llu with an older value",
			       a.n, (unsigned long long)lost,
			       (unsigned long long)stale);
		printf("\n");
	}
	acks_free(&a);
	free(s.links);
	if (cli_engine_close(eng))
		return EXIT_ERROR;
	return bad ? EXIT_CORRUPT : EXIT_OK;
}
