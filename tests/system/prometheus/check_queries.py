#!/usr/bin/env python3
"""Helpers of run_prometheus_check.sh (standard library + PyYAML only).

  check_queries.py consistency ROOT
      queries.txt lists every dashboard expression exactly, covers every selector of the alert rules,
      has no duplicates and nothing unused.
  check_queries.py query PROM_URL EVAL_TIME ROBOT FILE [FILE...]
      runs every expression of the files through /api/v1/query at EVAL_TIME; fails listing those that
      returned no data.
  check_queries.py wait-up PROM_URL JOB TIMEOUT_S
      waits until Prometheus has scraped JOB successfully.
"""
import json
import re
import sys
import time
import urllib.parse
import urllib.request

import yaml


def read_expressions(path):
    out = []
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def dashboard_expressions(path):
    exprs = []
    def walk(panels):
        for p in panels:
            for t in p.get("targets", []):
                if t.get("expr"):
                    exprs.append(t["expr"])
            walk(p.get("panels", []))
    walk(json.load(open(path))["panels"])
    return exprs


def consistency(root):
    queries = read_expressions(f"{root}/deploy/grafana/queries.txt")
    problems = []
    dupes = {q for q in queries if queries.count(q) > 1}
    problems += [f"queries.txt: duplicate line: {q}" for q in sorted(dupes)]
    used = set()
    for e in dashboard_expressions(f"{root}/deploy/grafana/dashboards/limbic.json"):
        if e not in queries:
            problems.append(f"dashboard expression missing from queries.txt: {e}")
        used.add(e)
    rules = yaml.safe_load(open(f"{root}/deploy/prometheus/alerts.yml"))
    for group in rules["groups"]:
        for rule in group["rules"]:
            expr = " ".join(rule["expr"].split())
            rest = expr
            for q in sorted(queries, key=len, reverse=True):
                if q in rest:
                    rest = rest.replace(q, " ")
                    used.add(q)
            # Whatever is left must not select series: no metric names, no selectors.
            leftover = re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*\s*\{|limbic_[a-z0-9_]+", rest)
            if leftover:
                problems.append(f"alert {rule['alert']}: selector(s) {leftover} not covered by queries.txt")
    problems += [f"queries.txt: line used by no panel or alert: {q}" for q in queries if q not in used]
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"consistency: {len(queries)} expressions; dashboard and alert rules fully covered")
    return 1 if problems else 0


def prom_query(url, expr, eval_time):
    params = urllib.parse.urlencode({"query": expr, "time": f"{eval_time:.3f}"})
    with urllib.request.urlopen(f"{url}/api/v1/query?{params}", timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError(body.get("error", "query failed"))
    return body["data"]["result"]


def query(url, eval_time, robot, files):
    failed = []
    total = 0
    for path in files:
        for expr in read_expressions(path):
            total += 1
            concrete = expr.replace("$robot", robot)
            try:
                result = prom_query(url, concrete, eval_time)
            except Exception as e:  # noqa: BLE001 - report every failure, keep going
                failed.append(f"{concrete}  (error: {e})")
                continue
            if not result:
                failed.append(concrete)
            else:
                sample = result[0]
                value = sample.get("value", ["", "?"])[1]
                print(f"  ok  {len(result):3d} series  e.g. {value:<12.12}  {concrete}")
    if failed:
        print(f"FAIL: {len(failed)} of {total} expressions returned no data:")
        for f in failed:
            print("   ", f)
        return 1
    print(f"all {total} expressions returned data")
    return 0


def wait_up(url, job, timeout_s):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            result = prom_query(url, f'up{{job="{job}"}} == 1', time.time())
            if result:
                return 0
        except Exception:  # noqa: BLE001 - Prometheus still starting
            pass
        time.sleep(0.5)
    print(f"FAIL: Prometheus never scraped job '{job}' successfully within {timeout_s} s")
    return 1


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "consistency":
        sys.exit(consistency(sys.argv[2]))
    if cmd == "query":
        sys.exit(query(sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5:]))
    if cmd == "wait-up":
        sys.exit(wait_up(sys.argv[2], sys.argv[3], float(sys.argv[4])))
    print(__doc__)
    sys.exit(2)
