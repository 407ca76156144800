#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# measure_report.py - doublewrite-cost's result and report (untorn-fscheck
# --measure): its rounds (DIR/round-K: doublewrite, none and the copyless
# guard with the server's redo capacity, then doublewrite with 4x it in
# DIR/round-K/redo-4x, the run named "doublewrite@4x"; again and again),
# each ratio (none over doublewrite, the guard over none, doublewrite@4x
# over doublewrite and over none) taken within a round and given as its
# median with the interval [min-max] over the rounds, and the one
# sentence.  The sentence calls a difference one only when the interval
# leaves 1.0 out; when it spans 1.0 it says the rounds cannot tell them
# apart here (within +-N %, N from the interval), and a lever slower in
# every round is said to cost, by how much, never "nothing".  It weighs
# the two levers -- turning the doublewrite off, a 4x redo log -- by
# doublewrite@4x over none, told the same way.
#
# USAGE: measure_report.py result VERDICT-JSON OUT GUARD ENGINE PATH ROWS
#                                 WARMUP MEASURED ROUNDS REDO-BYTES
#        measure_report.py report RESULT-JSON [--json]
#   result  one JSON object on stdout from the verdict (untorn-fscheck
#           --json), OUT/round-K/target-GUARD-t8.json (GUARD "-": no
#           copyless guard is safe here) and
#           OUT/round-K/redo-4x/target-doublewrite-t8.json; exit 2 when
#           doublewrite or none never ran
#   report  the table and the sentence (or the object, --json), exit 0
#           (the caller reads "safe" for its status).  An older result
#           (one run a guard, no rounds) prints too, its ratios as one
#           round: no spread
import decimal
import json
import math
import os
import statistics
import sys

THREADS = 8
# doublewrite-cost's run of doublewrite with 4x the server's redo log
REDO4X = "doublewrite@4x"


def interval(vals):
    """A ratio over the rounds: median, low, high and every round's value
    (None when it was taken in no round)."""
    if not vals:
        return None
    return {"median": round(statistics.median(vals), 3), "low": round(min(vals), 3),
            "high": round(max(vals), 3), "rounds": [round(v, 3) for v in vals]}


def within_pct(iv):
    """N of "within +-N %": how far the interval reaches from 1.0, in whole
    percent rounded up (so the interval lies within 1.0 +- N %)."""
    reach = max(iv["high"] - 1, 1 - iv["low"], 0)
    return int(math.ceil(round(reach * 100, 1)))


def told(iv):
    """What the rounds tell of a ratio: "faster" (every round above 1.0),
    "slower" (every round below), "cannot tell" (the interval spans 1.0)
    or "one round" (no spread to judge by)."""
    if len(iv["rounds"]) < 2:
        return "one round"
    if iv["low"] > 1:
        return "faster"
    if iv["high"] < 1:
        return "slower"
    return "cannot tell"


def fx(v):
    """A ratio with two decimals, halves rounded up as a reader does (the
    ratios are kept to three: 1.335 reads 1.34, within +-34 %), three
    when two would show 1.00 (a bound of 0.998 is below 1.0, and reads
    so)."""
    s = str(decimal.Decimal(repr(round(v, 3))).quantize(decimal.Decimal("0.01"), decimal.ROUND_HALF_UP))
    return "%.3f" % v if s == "1.00" and round(v, 3) != 1 else s


def pct(x):
    """A share in percent, whole unless under 1 %."""
    return ("%.1f" % x) if abs(x) < 1 else ("%.0f" % x)


def ratio_object(iv):
    """The ratio's object in the JSON: the interval, what it tells and
    how far it reaches from 1.0 (the N of +-N %)."""
    if iv is None:
        return None
    return dict(iv, told=told(iv), within_pct=within_pct(iv))


def gain(iv):
    """What an interval clear of 1.0 buys or costs, in percent with the
    range its ends give: "buy 10 % (4-15 %)" above, "cost 11 % (7-15 %)"
    below."""
    med, lo, hi = iv["median"], iv["low"], iv["high"]
    if told(iv) == "faster":
        return "buy %s %% (%s-%s %%)" % (pct((med - 1) * 100), pct((lo - 1) * 100), pct((hi - 1) * 100))
    return "cost %s %% (%s-%s %%)" % (pct((1 - med) * 100), pct((1 - hi) * 100), pct((1 - lo) * 100))


def none_phrase(iv, none_tps, dw_tps):
    """What turning the doublewrite off buys, from none over doublewrite."""
    n = len(iv["rounds"])
    med, lo, hi = iv["median"], iv["low"], iv["high"]
    how = told(iv)
    if how == "one round":
        return ("turning the doublewrite off here: none at %sx of doublewrite (%.0f against %.0f transactions/s), "
                "one round: no spread, so no difference is called" % (fx(med), none_tps, dw_tps))
    tps = "median TPS %.0f against %.0f" % (none_tps, dw_tps)
    if how in ("faster", "slower"):
        return ("turning the doublewrite off here would %s: none was %s than doublewrite "
                "in every one of %d rounds (%sx, %s-%sx; %s)" % (gain(iv), how, n, fx(med), fx(lo), fx(hi), tps))
    return ("turning the doublewrite off here: none against doublewrite, %d rounds cannot tell them apart here "
            "(within \u00b1%d %%; none at %s-%sx of doublewrite, median %sx; %s)" % (
                n, within_pct(iv), fx(lo), fx(hi), fx(med), tps))


def guard_phrase(guard, iv, ran):
    """untorn's copyless guard safe here, and how it runs beside none."""
    if not guard:
        return "no untorn guard without a second copy is safe here"
    if not ran or iv is None:
        return "untorn's %s guard is safe here but did not run" % guard
    n = len(iv["rounds"])
    med, lo, hi = iv["median"], iv["low"], iv["high"]
    how = told(iv)
    s = "untorn's %s guard is SAFE here" % guard
    if how == "one round":
        return s + " and ran at %sx of none (one round: no spread)" % fx(med)
    if how == "cannot tell":
        return s + (" and beside none %d rounds cannot tell them apart here (within \u00b1%d %%; "
                    "%s-%sx of none, median %sx)" % (n, within_pct(iv), fx(lo), fx(hi), fx(med)))
    return s + " and runs at %sx of none, %s in every one of %d rounds (%s-%sx)" % (fx(med), how, n, fx(lo), fx(hi))


def mib(b):
    return "%d MiB" % (b >> 20)


def redo_phrase(rd, rn, redo):
    """What a 4x redo log buys with the doublewrite on (rd: doublewrite@4x
    over doublewrite), and which lever buys more (rn: doublewrite@4x over
    none)."""
    n = len(rd["rounds"])
    logs = "%s against %s" % (mib(4 * redo), mib(redo))
    how = told(rd)
    if how == "one round":
        s = "a 4x redo log (%s) ran at %sx of doublewrite (one round: no spread)" % (logs, fx(rd["median"]))
    elif how in ("faster", "slower"):
        s = "a 4x redo log (%s) would %s with the doublewrite on, in every one of %d rounds" % (logs, gain(rd), n)
    else:
        s = ("a 4x redo log (%s) with the doublewrite on: %d rounds cannot tell it from the server's here "
             "(within \u00b1%d %%, %s-%sx)" % (logs, n, within_pct(rd), fx(rd["low"]), fx(rd["high"])))
    if rn is None:
        return s
    how = told(rn)
    if how == "faster":
        return s + ("; so the larger redo log buys more here than turning the doublewrite off "
                    "(doublewrite with it at %sx of none, %s-%sx)" % (fx(rn["median"]), fx(rn["low"]), fx(rn["high"])))
    if how == "slower":
        return s + ("; so turning the doublewrite off buys more here than the larger redo log "
                    "(doublewrite with it at %sx of none, %s-%sx)" % (fx(rn["median"]), fx(rn["low"]), fx(rn["high"])))
    if how == "cannot tell":
        return s + ("; which of the two buys more the rounds cannot tell here (doublewrite with the larger "
                    "log against none: within \u00b1%d %%)" % within_pct(rn))
    return s


def sentence(verdict, guard, nd, gn, none_tps, dw_tps, guard_ran, rd=None, rn=None, redo=0):
    """The one sentence: what none buys over doublewrite (nd), whether
    turning the doublewrite off is safe for InnoDB/MariaDB, what a 4x redo
    log buys (rd) and which lever buys more (rn), and untorn's copyless
    guard against none (gn)."""
    inno = verdict["innodb_doublewrite_off"]
    s = "%s, and for InnoDB/MariaDB it is %s because %s" % (
        none_phrase(nd, none_tps, dw_tps), "SAFE" if inno["safe"] else "UNSAFE", inno["reason"])
    if rd is not None:
        s += "; " + redo_phrase(rd, rn, redo)
    return s + "; " + guard_phrase(guard, gn, guard_ran) + "."


def ratio_rounds(rounds, num, den):
    """num's TPS over den's, round by round (the rounds where both ran)."""
    return [r[num]["tps"] / r[den]["tps"] for r in rounds
            if num in r and den in r and r[den]["tps"]]


RUN_KEYS = ("tps", "commit_p99_us", "worst_over_median", "pages_written", "log_space_wait_ns", "fresh_load",
            "redo_log_bytes")


def run_summary(guard, runs):
    """A guard over the rounds: the figures of its run of median TPS (the
    lower middle one when the rounds are even), every round's TPS, and its
    worst second of all."""
    mid = sorted(runs, key=lambda r: r["tps"])[(len(runs) - 1) // 2]
    s = {"guard": guard}
    s.update({k: mid.get(k) for k in RUN_KEYS})
    s["tps"] = statistics.median(r["tps"] for r in runs)
    s["tps_rounds"] = [r["tps"] for r in runs]
    s["worst_over_median"] = round(min((r.get("worst_over_median") or 0) for r in runs), 3)
    return s


def load_rounds(out, guards, n):
    """[{run name: run}] for rounds 1..n from OUT/round-K/target-GUARD-t8.json
    and the 4x doublewrite's OUT/round-K/redo-4x/target-doublewrite-t8.json,
    each round's runs in the order they ran (OUT/round-K/order, a name a
    line; the guards' order, then the 4x, where it is missing)."""
    rounds = []
    for k in range(1, n + 1):
        r = {}
        at = os.path.join(out, "round-%d" % k)
        files = dict([(g, os.path.join(at, "target-%s-t%d.json" % (g, THREADS))) for g in guards] +
                     [(REDO4X, os.path.join(at, "redo-4x", "target-doublewrite-t%d.json" % THREADS))])
        ran = list(files)
        if os.path.exists(os.path.join(at, "order")):
            ran = [g for g in open(os.path.join(at, "order")).read().split() if g in files]
        for name in ran:
            if os.path.exists(files[name]):
                r[name] = json.load(open(files[name]))
        rounds.append(r)
    return rounds


def build(verdict, rounds, guard, engine, path, rows, warmup, measured, redo):
    """The result object from the verdict and the rounds' runs ({run name:
    run} a round); None when doublewrite or none ran in no round."""
    order = [g for g in ("doublewrite", "none", guard, REDO4X) if g]
    by = {g: [r[g] for r in rounds if g in r] for g in order}
    if not by["doublewrite"] or not by["none"]:
        return None
    runs = [run_summary(g, by[g]) for g in order if by[g]]
    nd = interval(ratio_rounds(rounds, "none", "doublewrite"))
    gn = interval(ratio_rounds(rounds, guard, "none")) if guard else None
    rd = interval(ratio_rounds(rounds, REDO4X, "doublewrite"))
    rn = interval(ratio_rounds(rounds, REDO4X, "none"))
    if nd is None:
        return None
    first = next((r for g in order for r in by[g] if r.get("calibration")), by["doublewrite"][0])
    dw_tps, none_tps = runs[0]["tps"], runs[1]["tps"]
    inno = verdict["innodb_doublewrite_off"]
    return {"path": path, "verdict": verdict, "engine": engine,
            "rows": int(rows), "warmup_s": int(warmup), "seconds": int(measured), "threads": THREADS,
            "redo_capacity_bytes": int(redo),
            "regime": "flush", "target": first.get("target"), "calibration": first.get("calibration"),
            "runs": runs,
            "rounds": [{"round": k + 1, "runs": [dict({"guard": g}, **{key: r[g].get(key) for key in RUN_KEYS})
                                                  for g in r if g in order]}
                       for k, r in enumerate(rounds)],
            "ratios": {"none_over_doublewrite": ratio_object(nd), "guard_over_none": ratio_object(gn),
                       "redo4x_over_doublewrite": ratio_object(rd), "redo4x_over_none": ratio_object(rn)},
            # the scalars before the rounds (their medians), kept for one release
            "none_over_doublewrite": nd["median"], "guard": guard or None,
            "guard_over_none": gn["median"] if gn else None,
            "safe": inno["safe"] if engine == "innodb" else bool(guard),
            "sentence": sentence(verdict, guard, nd, gn, none_tps, dw_tps, bool(by.get(guard)), rd, rn, int(redo))}


def upgrade(res):
    """An older result (one run a guard, no rounds, no ratio objects): its
    ratios as one round, and its sentence said again as one round's."""
    if res.get("ratios"):
        return res
    runs = {r["guard"]: r for r in res["runs"]}
    guard = res.get("guard") or ""
    rounds = [runs]
    nd = interval(ratio_rounds(rounds, "none", "doublewrite"))
    gn = interval(ratio_rounds(rounds, guard, "none")) if guard else None
    res = dict(res, rounds=[{"round": 1, "runs": res["runs"]}],
               ratios={"none_over_doublewrite": ratio_object(nd), "guard_over_none": ratio_object(gn)})
    res["sentence"] = sentence(res["verdict"], guard, nd, gn, runs["none"]["tps"], runs["doublewrite"]["tps"],
                               guard in runs)
    return res


def spread(vals, f, unit=""):
    """median [min-max] of a list, each through f (one value alone):
    "1.09x [0.88-1.10]"."""
    if not vals:
        return "-"
    if len(vals) == 1:
        return f(vals[0]) + unit
    return "%s%s [%s-%s]" % (f(statistics.median(vals)), unit, f(min(vals)), f(max(vals)))


def per_round(res, num, den):
    """num's TPS over den's in each round of a result, rounded as the
    ratio objects are (the table and the sentence agree)."""
    rounds = [{r["guard"]: r for r in rd["runs"]} for rd in res["rounds"]]
    return [round(v, 3) for v in ratio_rounds(rounds, num, den)]


def table(res):
    """The report's lines: the target, the rounds, a row a guard, the sentence."""
    c, t = res.get("calibration") or {}, res.get("target") or {}
    n = len(res["rounds"])
    order = [r["guard"] for r in res["runs"]]
    lines = ["  target: %s (%s), %s %s; fio: %s random 16 KiB writes/s, fdatasync %s ms" % (
        t.get("device", "?"), t.get("model", "?"), t.get("fstype", "?"), t.get("mount_options", ""),
        c.get("randwrite_16k_iops", "?"), c.get("fdatasync_ms", "?"))]
    if n > 1:
        lines.append("  %d rounds of %s, %d s warm-up and %d s measured a run; median [min-max] over the rounds,"
                     " each ratio taken within a round" % (n, ", ".join(order), res.get("warmup_s", 0),
                                                          res.get("seconds", 0)))
    else:
        lines.append("  one round: no spread (an older result, one run a guard)")
    if res.get("redo_capacity_bytes"):
        lines.append("  redo log: %s a run (the server's capacity), %s for %s" % (
            mib(res["redo_capacity_bytes"]), mib(4 * res["redo_capacity_bytes"]), REDO4X))
    lines.append("")
    lines.append("%-15s %22s %22s %22s %13s" % ("guard", "tps", "/doublewrite", "/none", "worst second"))
    for r in res["runs"]:
        g = r["guard"]
        tps = r.get("tps_rounds") or [r["tps"]]
        lines.append("%-15s %22s %22s %22s %13.2f" % (
            g, spread(tps, lambda v: "%.0f" % v),
            spread(per_round(res, g, "doublewrite"), fx, "x") if g != "doublewrite" else "1.00x",
            spread(per_round(res, g, "none"), fx, "x") if g != "none" else "1.00x",
            r.get("worst_over_median") or 0))
    lines.append("")
    lines.append(res["sentence"])
    return lines


def main(argv):
    if len(argv) == 11 and argv[0] == "result":
        vf, out, guard, engine, path, rows, warmup, measured, n, redo = argv[1:]
        guard = "" if guard == "-" else guard
        verdict = json.load(open(vf))
        rounds = load_rounds(out, [g for g in ("doublewrite", "none", guard) if g], int(n))
        res = build(verdict, rounds, guard, engine, path, rows, warmup, measured, redo)
        if res is None:
            print("doublewrite-cost: doublewrite or none did not run (bench-matrix's output: %s/bench.log)" % out,
                  file=sys.stderr)
            return 2
        print(json.dumps(res, indent=1))
        return 0
    if len(argv) in (2, 3) and argv[0] == "report":
        res = json.load(open(argv[1]))
        if argv[2:] == ["--json"]:
            print(json.dumps(res, indent=1))
        else:
            print("\n".join(table(upgrade(res))))
        return 0
    print("usage: measure_report.py result VERDICT OUT GUARD ENGINE PATH ROWS WARMUP MEASURED ROUNDS REDO-BYTES\n"
          "       measure_report.py report RESULT [--json]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
