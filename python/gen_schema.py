#!/usr/bin/env python3
"""Build step: reads limbic's .fbs files and writes limbic/_schema.py, the facts the Python client needs beside the
code `flatc --python` generates: each message type's 4-character identifier (from its standard `file_identifier` /
`root_type` declaration), and each table's and struct's fields in schema order with their schema (snake_case) names,
types and deprecation, so decoded messages carry the names the schemas, `limbic echo` and docs/protocol.md use.

usage: gen_schema.py OUT.py FILE.fbs...

Reads the subset of the FlatBuffers grammar limbic's schemas use (include, namespace, attribute, enum, struct, table,
file_identifier, root_type); anything else is an error naming the file, so a schema change cannot pass unnoticed.
"""
import pprint
import re
import sys

SCALARS = {"bool", "byte", "ubyte", "short", "ushort", "int", "uint", "long", "ulong", "float", "double",
           "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64"}


def strip_comments(text):
    return re.sub(r"//[^\n]*", "", text)


def parse(path, roots, types, enums):
    text = strip_comments(open(path, encoding="utf-8").read())
    pos = 0
    file_identifier = root_type = None
    statement = re.compile(r"\s*(include|namespace|attribute|file_identifier|root_type)\s+([^;]*);"
                           r"|\s*(enum|struct|table)\s+(\w+)\s*([^{]*)\{([^}]*)\}", re.S)
    while pos < len(text):
        if not text[pos:].strip():
            break
        m = statement.match(text, pos)
        if not m:
            raise SystemExit(f"{path}: cannot read the schema near: {text[pos:pos + 60].strip()!r}")
        pos = m.end()
        if m.group(1) == "file_identifier":
            file_identifier = m.group(2).strip().strip('"')
        elif m.group(1) == "root_type":
            root_type = m.group(2).strip().split(".")[-1]
        elif m.group(3) == "enum":
            values, next_value = {}, 0
            for item in filter(None, (s.strip() for s in m.group(6).split(","))):
                name, _, value = (p.strip() for p in item.partition("="))
                next_value = int(value, 0) if value else next_value
                values[name] = next_value
                next_value += 1
            enums[m.group(4)] = values
        elif m.group(3) in ("struct", "table"):
            fields = []
            for decl in filter(None, (s.strip() for s in m.group(6).split(";"))):
                fm = re.match(r"(\w+)\s*:\s*(\[?)\s*([\w.]+)\s*\]?\s*(?:=\s*([^()]+?))?\s*(\(([^)]*)\))?$", decl, re.S)
                if not fm:
                    raise SystemExit(f"{path}: cannot read field {decl!r} of {m.group(4)}")
                fields.append({"name": fm.group(1), "type": fm.group(3).split(".")[-1], "vector": fm.group(2) == "[",
                               "deprecated": "deprecated" in (fm.group(6) or "")})
            types[m.group(4)] = {"kind": m.group(3), "fields": fields}
    if (file_identifier is None) != (root_type is None):
        raise SystemExit(f"{path}: file_identifier and root_type go together (one message type per file)")
    if root_type is not None:
        if len(file_identifier) != 4:
            raise SystemExit(f"{path}: file_identifier must be 4 characters")
        if root_type in roots:
            raise SystemExit(f"{path}: {root_type} is declared as a root type twice")
        roots[root_type] = file_identifier


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    roots, types, enums = {}, {}, {}
    for path in argv[2:]:
        parse(path, roots, types, enums)
    for name, fields in types.items():
        for f in fields["fields"]:
            if f["type"] not in SCALARS and f["type"] != "string" and f["type"] not in types and f["type"] not in enums:
                raise SystemExit(f"{name}.{f['name']}: unknown type {f['type']}")
    with open(argv[1], "w", encoding="utf-8") as out:
        out.write("# Generated at build time by python/gen_schema.py from messages/*.fbs. Do not edit.\n")
        out.write(f"ROOTS = {pprint.pformat(roots, width=118)}\n")
        out.write(f"TYPES = {pprint.pformat(types, width=118)}\n")
        out.write(f"ENUMS = {pprint.pformat(enums, width=118)}\n")


if __name__ == "__main__":
    main(sys.argv)
