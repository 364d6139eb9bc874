"""Experiment results (`limbic experiment run`: runs.csv, summary.csv, per_traversal.csv) as lists of dicts.

    from limbic.runs import read_csv
    rows = read_csv("out/ch10/runs.csv")
    arrived = sum(r["success"] for r in rows)

Values are converted by column: integers and real numbers to int and float, the 0/1 `success` column to bool, the
rest left as text (`seed` stays an int however large; an empty cell is None).
"""
import csv

BOOL_COLUMNS = {"success"}


def _value(column, text):
    if text == "":
        return None
    if column in BOOL_COLUMNS and text in ("0", "1"):
        return text == "1"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def read_csv(path):
    """Every row of a limbic CSV file as a dict keyed by its header. Raises OSError for a missing file and
    ValueError for a row whose cell count differs from the header's (naming the line)."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        try:
            header = next(reader)
        except StopIteration:
            raise ValueError(f"{path}: empty file (no header)") from None
        rows = []
        for row in reader:
            if not row:
                continue
            if len(row) != len(header):
                raise ValueError(f"{path}:{reader.line_num}: {len(row)} cells, the header has {len(header)}")
            rows.append({c: _value(c, t) for c, t in zip(header, row)})
        return rows


read_runs_csv = read_csv
