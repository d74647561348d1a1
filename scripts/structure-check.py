#!/usr/bin/env python3
"""The workspace's structure rules, checked (CI's "structure" stage):

1. No import cycle between the modules of a crate. A module depends on
   another when it names it in a path (`use crate::a::b`, `super::x`,
   `crate::a::f()` in code), the item followed through `pub use`
   re-exports to the module that defines it; a module's own children and
   the re-exports that make its public surface are not dependencies of
   it (`pub use child::X` in a parent is the parent's surface, not a use).
2. No glob import of a parent (`use super::*`) outside `#[cfg(test)]`
   modules: every file says what it uses.
3. No function over 100 lines, except inline-assembly listings (a body
   that is mostly one `asm!` block: a Montgomery multiplication unrolled
   instruction by instruction is read as a listing, not as steps).

    scripts/structure-check.py [--explain]     exit 1 and one line per finding
    scripts/structure-check.py --self-test     a planted cycle, parent glob and
                                               long function must each be found

It reads the sources only (no build); the parse is line-based and knows
Rust's module layout (`lib.rs`, `main.rs`, `foo.rs`, `foo/mod.rs`,
`foo/bar.rs`, `#[path]` is not used in the crates).
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_FN_LINES = 100
# Files written by a generator as a whole (none at present; the ADX
# kernels are exempt function by function, as assembly listings).
GENERATED = set()

ITEM = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+|const\s+|async\s+|extern\s+\"C\"\s+)*"
    r"(fn|struct|enum|trait|type|const|static|union|macro_rules!)\s+([A-Za-z_][A-Za-z0-9_]*)"
)
MOD_DECL = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;")
USE = re.compile(r"^\s*(pub(?:\([^)]*\))?\s+)?use\s+(.*)$")
PATH_IN_CODE = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def crate_dirs():
    dirs = [os.path.join(ROOT, "src")]
    crates = os.path.join(ROOT, "crates")
    for c in sorted(os.listdir(crates)):
        src = os.path.join(crates, c, "src")
        if os.path.isdir(src):
            dirs.append(src)
    return dirs


def strip_comments(text):
    """Removes // and /* */ comments and string contents (line count kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'" and i + 2 < n and (text[i + 2] == "'" or (text[i + 1] == "\\" and i + 3 < n)):
            # a char literal ('x' or '\n'); lifetimes ('a) pass through
            j = text.find("'", i + 2 if text[i + 1] == "\\" else i + 1)
            out.append("' '")
            i = (j + 1) if j > 0 else i + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def test_ranges(lines):
    """Line ranges of `#[cfg(test)] mod ... { ... }` blocks."""
    ranges, i = [], 0
    while i < len(lines):
        if lines[i].strip().startswith("#[cfg(test)]"):
            j = i + 1
            while j < len(lines) and lines[j].strip().startswith("#["):
                j += 1
            if j < len(lines) and re.match(r"^\s*(pub\s+)?mod\s+\w+\s*\{", lines[j]):
                depth, k = 0, j
                while k < len(lines):
                    depth += lines[k].count("{") - lines[k].count("}")
                    if depth == 0 and k > j or (depth == 0 and "}" in lines[k] and k >= j):
                        break
                    k += 1
                ranges.append((i, k))
                i = k
        i += 1
    return ranges


class Module:
    def __init__(self, path, file):
        self.path = path  # tuple of names; () is the crate root
        self.file = file
        self.items = set()
        self.children = set()
        self.reexports = {}  # name -> full path (tuple) it comes from
        self.glob_reexports = []  # module paths re-exported with *
        self.refs = []  # (line, path tuple)
        self.globs = []  # (line, path tuple) of non-test `use ...::*`
        self.lines = []


def load_crate(src):
    mods = {}

    def visit(file, path):
        m = Module(path, file)
        mods[path] = m
        with open(file) as f:
            raw = f.read()
        text = strip_comments(raw)
        lines = text.split("\n")
        m.lines = lines
        tests = test_ranges(lines)
        in_test = lambda ln: any(a <= ln <= b for a, b in tests)
        base = os.path.dirname(file)
        stem = os.path.basename(file)[:-3]
        child_dir = base if stem in ("lib", "main", "mod") else os.path.join(base, stem)
        stmt = ""
        stmt_start = 0
        for ln, line in enumerate(lines):
            if in_test(ln):
                continue
            md = MOD_DECL.match(line)
            if md:
                name = md.group(1)
                m.children.add(name)
                for cand in (os.path.join(child_dir, name + ".rs"), os.path.join(child_dir, name, "mod.rs")):
                    if os.path.exists(cand):
                        visit(cand, path + (name,))
                        break
                continue
            it = ITEM.match(line)
            if it and line.startswith(("pub", "fn", "struct", "enum", "trait", "type", "const", "static", "union", "macro_rules", "unsafe", "#")) or (it and not line.startswith(" ")):
                m.items.add(it.group(2))
            # use statements, possibly over several lines
            if not stmt:
                mu = USE.match(line)
                if mu:
                    stmt, stmt_start = line, ln
            else:
                stmt += " " + line
            if stmt:
                if ";" in stmt:
                    parse_use(m, stmt, stmt_start)
                    stmt = ""
                continue
            for pm in PATH_IN_CODE.finditer(line):
                m.refs.append((ln, (pm.group(1),) + tuple(pm.group(2).strip(":").split("::"))))
        return m

    for root in ("lib.rs", "main.rs"):
        f = os.path.join(src, root)
        if os.path.exists(f):
            visit(f, ())
            break
    # Modules declared through a macro (zkaccel-cuda's public_for_tests!):
    # every file under src/ is a module at its path.
    seen = {m.file for m in mods.values()}
    for dirpath, _, files in os.walk(src):
        for fname in sorted(files):
            f = os.path.join(dirpath, fname)
            if not fname.endswith(".rs") or f in seen or "/bin/" in f:
                continue
            rel = os.path.relpath(f, src)[:-3].split(os.sep)
            if rel[-1] == "mod":
                rel = rel[:-1]
            path = tuple(rel)
            if path in mods:
                continue
            parent = mods.get(path[:-1])
            if parent is not None:
                parent.children.add(path[-1])
            visit(f, path)
    return mods


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> [[a, b], [a, c, d], [a, c, e]] (with `as` dropped)."""
    tree = tree.strip().rstrip(";").strip()
    tree = re.sub(r"\s+as\s+[A-Za-z_][A-Za-z0-9_]*", "", tree)
    out = []

    def split_top(s):
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        if cur.strip():
            parts.append(cur)
        return [p.strip() for p in parts if p.strip()]

    def rec(prefix, s):
        s = s.strip()
        if "{" in s:
            head, rest = s.split("{", 1)
            rest = rest[: rest.rfind("}")]
            head = [p for p in head.strip().strip(":").split("::") if p]
            for part in split_top(rest):
                rec(prefix + head, part)
        else:
            out.append(prefix + [p for p in s.split("::") if p])

    rec([], tree)
    return out


def parse_use(m, stmt, ln):
    mu = USE.match(stmt)
    public = bool(mu.group(1))
    for p in expand_use(mu.group(2)):
        if not p:
            continue
        if p[-1] == "self":
            p = p[:-1]
        if p[0] not in ("crate", "super", "self") and p[0] not in m.children:
            continue  # another crate
        if p[0] in m.children:
            p = ["self"] + p
        if p[-1] == "*":
            if public:
                m.glob_reexports.append(tuple(p[:-1]))
            else:
                m.globs.append((ln, tuple(p[:-1])))
                m.refs.append((ln, tuple(p[:-1])))
            continue
        if public:
            m.reexports[p[-1]] = tuple(p)
        else:
            m.refs.append((ln, tuple(p)))


def absolute(mod_path, p):
    """A `crate`/`super`/`self` path as a path from the crate root."""
    cur = list(mod_path)
    i = 0
    if p[0] == "crate":
        cur, i = [], 1
    while i < len(p) and p[i] in ("super", "self"):
        if p[i] == "super":
            cur = cur[:-1]
        i += 1
    if p[0] == "super":
        cur = list(mod_path[:-1])
        i = 1
        while i < len(p) and p[i] == "super":
            cur = cur[:-1]
            i += 1
    elif p[0] == "self":
        cur = list(mod_path)
        i = 1
    return tuple(cur) + tuple(p[i:])


def resolve(mods, path, depth=0):
    """The module that defines what `path` (from the root) names."""
    # the longest prefix that is a module
    k = len(path)
    while k > 0 and path[:k] not in mods:
        k -= 1
    owner = path[:k]
    rest = path[k:]
    if not rest or depth > 10:
        return owner
    name = rest[0]
    m = mods[owner]
    if name in m.items:
        return owner
    if name in m.reexports:
        target = absolute(owner, m.reexports[name])
        return resolve(mods, target + tuple(rest[1:]), depth + 1)
    for g in m.glob_reexports:
        target = absolute(owner, g)
        if target in mods and (name in mods[target].items or name in mods[target].reexports):
            return resolve(mods, target + tuple(rest), depth + 1)
    return owner


def edges(mods):
    out = {}
    for path, m in mods.items():
        deps = {}
        for ln, p in m.refs:
            target = resolve(mods, absolute(path, p))
            if target == path or target[: len(path)] == path and len(target) > len(path):
                continue  # itself, or one of its own descendants
            if path[: len(target)] == target:
                # an ancestor: a real dependency only if the item lives there
                pass
            deps.setdefault(target, ln)
        out[path] = deps
    return out


def find_cycles(graph):
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in graph:
                continue
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(comp)

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            strong(v)
    return sccs


def assembly_listing(body):
    """Whether most of a function's lines lie inside `asm!(...)` blocks."""
    inside, depth, count = False, 0, 0
    for line in body:
        if not inside and re.search(r"\basm!\s*\(", line):
            inside, depth = True, 0
        if inside:
            count += 1
            depth += line.count("(") - line.count(")")
            if depth <= 0 and ")" in line:
                inside = False
    return count >= 0.8 * len(body)


def long_functions(file, lines):
    found = []
    fn = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+|unsafe\s+|async\s+|extern\s+\"C\"\s+)*fn\s+(\w+)")
    i = 0
    while i < len(lines):
        mf = fn.match(lines[i])
        if mf:
            # the body starts at the first `{` at depth 0 after the signature
            j, depth, started = i, 0, False
            while j < len(lines):
                for ch in lines[j]:
                    if ch == "{":
                        depth += 1
                        started = True
                    elif ch == "}":
                        depth -= 1
                if started and depth == 0:
                    break
                if not started and lines[j].rstrip().endswith(";"):
                    break  # a declaration without a body
                j += 1
            n = j - i + 1
            if started and n > MAX_FN_LINES and not assembly_listing(lines[i : j + 1]):
                found.append((i + 1, mf.group(1), n))
            i = j + 1 if started else i + 1
        else:
            i += 1
    return found


def findings(explain=False):
    problems = []
    for src in crate_dirs():
        crate = os.path.relpath(os.path.dirname(src), ROOT) or "."
        mods = load_crate(src)
        graph = edges(mods)
        name = lambda p: "::".join(p) or "(root)"
        for comp in find_cycles(graph):
            comp_set = set(comp)
            detail = []
            for a in sorted(comp):
                for b, ln in graph[a].items():
                    if b in comp_set:
                        detail.append(f"{name(a)} -> {name(b)} ({os.path.relpath(mods[a].file, ROOT)}:{ln + 1})")
            problems.append(f"{crate}: module cycle among {', '.join(sorted(name(c) for c in comp))}"
                            + ("\n    " + "\n    ".join(detail) if explain else ""))
        for path, m in mods.items():
            rel = os.path.relpath(m.file, ROOT)
            for ln, g in m.globs:
                if g and g[0] == "super" and all(x == "super" for x in g):
                    problems.append(f"{rel}:{ln + 1}: glob import of a parent (use super::*): name what you use")
            if rel not in GENERATED:
                for line, fname, n in long_functions(m.file, m.lines):
                    problems.append(f"{rel}:{line}: fn {fname} is {n} lines (at most {MAX_FN_LINES})")
    return problems


def self_test():
    """Plants each kind of finding in a scratch crate and checks it is found."""
    import tempfile
    global ROOT
    saved = ROOT
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "crates", "planted", "src")
        os.makedirs(os.path.join(src, "m"))
        files = {
            "lib.rs": "mod a;\nmod b;\nmod m;\npub use a::A;\n",
            "a.rs": "use crate::b::B;\npub struct A;\n",
            "b.rs": "use crate::A;\npub struct B;\n",
            "m/mod.rs": "mod c;\npub(crate) fn helper() {}\n",
            "m/c.rs": "use super::*;\nfn long() {\n" + "    helper();\n" * 120 + "}\n",
        }
        for name, text in files.items():
            with open(os.path.join(src, name), "w") as f:
                f.write(text)
        ROOT = tmp
        try:
            got = findings()
        finally:
            ROOT = saved
    want = ["module cycle among a, b", "glob import of a parent", "fn long is 122 lines"]
    missing = [w for w in want if not any(w in g for g in got)]
    if missing:
        print("structure-check self-test: not found: " + "; ".join(missing), file=sys.stderr)
        print("\n".join(got), file=sys.stderr)
        return 1
    print("structure-check self-test: the planted cycle, parent glob and long function were found")
    return 0


def main():
    if "--self-test" in sys.argv:
        return self_test()
    problems = findings("--explain" in sys.argv)
    for p in problems:
        print(p)
    if problems:
        print(f"structure-check: {len(problems)} finding(s)", file=sys.stderr)
        return 1
    print("structure-check: no module cycle, no parent glob import, no function over "
          f"{MAX_FN_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
