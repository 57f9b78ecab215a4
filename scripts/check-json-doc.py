#!/usr/bin/env python3
"""Checks docs/JSON.md against docs/report.schema.json, both ways.

Every property the schema declares (followed through $ref, array items and
additionalProperties) must have a row in JSON.md's "## Fields" section, and
every row there must be a property of the schema, with the same type. A row
is a table line whose first cell is the field's path in backticks:

    | `results[].samples.{source,destination}.cpu.busy` | number | ... |

`[]` stands for the items of an array, `*` for the members an object admits
beyond those it names (additionalProperties), and `{a,b}` for the same field
in two places (one $ref used twice). The type cell is the schema's type as
rendered by type_text(): "integer or null", "array", "one of "ok", "failed"".

Usage: check-json-doc.py [SCHEMA [DOC]]  (defaults: the repository's).
With --rows, prints the rows the document lacks, ready to paste, and exits
0. Exits 1, naming each difference, when the two disagree.
"""
import json
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def schema_fields(schema):
    """{path: node} for every property of the schema, in document order."""
    defs = schema.get("$defs", {})
    fields = {}

    def resolve(node):
        while isinstance(node, dict) and "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[1]]
        return node

    def walk(node, path):
        node = resolve(node)
        if not isinstance(node, dict):
            return
        for name, sub in node.get("properties", {}).items():
            p = f"{path}.{name}" if path else name
            fields[p] = resolve(sub)
            walk(sub, p)
        if isinstance(node.get("items"), dict):
            walk(node["items"], path + "[]")
        if isinstance(node.get("additionalProperties"), dict):
            p = path + ".*"
            fields[p] = resolve(node["additionalProperties"])
            walk(node["additionalProperties"], p)

    walk(schema, "")
    return fields


def type_text(node):
    if "enum" in node:
        return "one of " + ", ".join(json.dumps(v) for v in node["enum"])
    t = node.get("type")
    if t is None:
        return "any"
    types = [t] if isinstance(t, str) else list(t)
    types = [x for x in types if x != "null"] + [x for x in types if x == "null"]
    return " or ".join(types)


def expand(path):
    """`a.{b,c}.d` -> [`a.b.d`, `a.c.d`] (one brace group at a time)."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    out = []
    for alt in m.group(1).split(","):
        out += expand(path[: m.start()] + alt.strip() + path[m.end():])
    return out


ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|([^|]*)\|")


def doc_fields(text):
    """{path: (type cell, line number)} from the rows of the "## Fields" section."""
    rows, dup = {}, []
    inside = False
    for no, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            inside = line.strip() == "## Fields"
            continue
        m = ROW.match(line) if inside else None
        if not m:
            continue
        for p in expand(m.group(1)):
            if p in rows:
                dup.append(f"line {no}: `{p}` has a row already (line {rows[p][1]})")
            rows[p] = (m.group(2).strip(), no)
    return rows, dup


def main(argv):
    rows_mode = "--rows" in argv
    args = [a for a in argv[1:] if a != "--rows"]
    schema_path = args[0] if args else os.path.join(TOP, "docs", "report.schema.json")
    doc_path = args[1] if len(args) > 1 else os.path.join(TOP, "docs", "JSON.md")
    with open(schema_path, encoding="utf-8") as f:
        fields = schema_fields(json.load(f))
    with open(doc_path, encoding="utf-8") as f:
        rows, problems = doc_fields(f.read())
    if not rows:
        print(f"{doc_path}: no field rows under a '## Fields' heading")
        return 1
    missing = [p for p in fields if p not in rows]
    if rows_mode:
        for p in missing:
            print(f"| `{p}` | {type_text(fields[p])} | {fields[p].get('description', '')} |")
        return 0
    for p in missing:
        problems.append(f"`{p}` ({type_text(fields[p])}) is in the schema but has no row; add: "
                        f"| `{p}` | {type_text(fields[p])} | ... |")
    for p, (t, no) in rows.items():
        if p not in fields:
            problems.append(f"line {no}: `{p}` is not in the schema: remove the row, or add the field to {os.path.basename(schema_path)}")
        elif t != type_text(fields[p]):
            problems.append(f"line {no}: `{p}` says type '{t}', the schema '{type_text(fields[p])}'")
    for line in problems:
        print(f"{os.path.basename(doc_path)}: {line}")
    if problems:
        print(f"{len(problems)} difference(s) between {doc_path} and {schema_path}")
        return 1
    print(f"{os.path.basename(doc_path)}: {len(rows)} fields, each as the schema has it")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
