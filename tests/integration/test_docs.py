"""The user guide's tables and the file maps agree with the code (one home per fact).

doc/guides/nics/refnic.rst has the one devargs table and the one xstats
table. Their keys and names are checked against the sources, not against
any listing made from the guide:

- devargs: the string the PMD registers (RTE_PMD_REGISTER_PARAM_STRING,
  which dpdk-pmdinfo.py prints) and the key tables the probe accepts
  (refnic_devargs_keys[], refnic_emu_devargs_keys[]) are read from the .c
  and .h files, their macros expanded; the guide's table must hold exactly
  those keys. With a build at hand (REFNIC_BUILD), the same against
  dpdk-pmdinfo.py's listing of the built PMD.
- xstats: the port counters of refnic_xstats.c (port_xstats[]) and the
  per-queue names (rxq_xstats[], txq_xstats[] as rx_q<N>_..., tx_q<N>_...)
  against the guide's "Extended Statistics" section.

Each stack has one file map, and each map names every file (or folder) of
its stack once and nothing that is not there (a missing, doubled or stale
row fails):

- drivers/net/refnic/DESIGN.rst, "Files": every file of drivers/net/refnic/;
- device/DESIGN.rst, "Files": every .c and .h of device/ and device/cable/;
- tests/README.rst, "Layout": every file and folder of tests/;
- README.md, "Tour": every file of the checkout, by its own row or a folder
  row above it (the driver, device and tests rows point at the maps above),
  so app/ and devtools/ file by file.

Nothing here needs a build or a DPDK process but the pmdinfo check.
"""

import json
import os
import re
import shutil
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GUIDE = os.path.join(REPO, "doc", "guides", "nics", "refnic.rst")
DEVICE = os.path.join(REPO, "device")
DRIVER = os.path.join(REPO, "drivers", "net", "refnic")
TESTS = os.path.join(REPO, "tests")
SOURCE_DIRS = (os.path.join(REPO, "drivers", "net", "refnic"), os.path.join(REPO, "device"))

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(\(?)(.*)$", re.M)
_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\w+|\S')


# ---------------------------------------------------------------- sources

def _sources():
    """{path: text without comments, continuation lines joined} for .c and .h."""
    out = {}
    for top in SOURCE_DIRS:
        for root, _, files in os.walk(top):
            for name in files:
                if name.endswith((".c", ".h")):
                    path = os.path.join(root, name)
                    with open(path) as f:
                        text = _COMMENT.sub(" ", f.read())
                    out[path] = text.replace("\\\n", " ")
    return out


def _defines(sources):
    """Object-like macros: {name: set of bodies} over every source file."""
    defs = {}
    for text in sources.values():
        for name, paren, body in _DEFINE.findall(text):
            if paren:
                continue  # function-like: no key or name is one
            defs.setdefault(name, set()).add(body.strip())
    return defs


def _expand(expr, defs, depth=0):
    """A C string expression (literals and macros) -> the string it makes."""
    assert depth < 20, "macro expansion too deep at %r" % expr
    out = []
    for tok in _TOKEN.findall(expr):
        if tok.startswith('"'):
            out.append(bytes(tok[1:-1], "utf-8").decode("unicode_escape"))
        elif re.fullmatch(r"\w+", tok):
            bodies = defs.get(tok)
            assert bodies, "%s is not a macro the sources define" % tok
            assert len(bodies) == 1, "%s is defined differently: %s" % (tok, bodies)
            out.append(_expand(next(iter(bodies)), defs, depth + 1))
        elif tok not in "()":
            raise AssertionError("unexpected %r in a string expression: %r" % (tok, expr))
    return "".join(out)


def param_string_keys(params):
    """'key=<what> key2=a|b' -> ['key', 'key2']."""
    return [word.split("=", 1)[0] for word in params.split()]


def registered_param_string():
    """The string given to RTE_PMD_REGISTER_PARAM_STRING, macros expanded."""
    sources = _sources()
    found = []
    for text in sources.values():
        found += re.findall(r"RTE_PMD_REGISTER_PARAM_STRING\(\s*\w+\s*,(.*?)\)\s*;", text, re.S)
    assert len(found) == 1, "expected one RTE_PMD_REGISTER_PARAM_STRING, found %d" % len(found)
    return _expand(found[0], _defines(sources))


def accepted_keys():
    """{table name: keys} of every NULL-terminated *_devargs_keys[] table."""
    sources = _sources()
    defs = _defines(sources)
    tables = {}
    table = re.compile(r"const\s+char\s*\*\s*const\s+(\w+_devargs_keys)\s*\[\]\s*=\s*\{(.*?)\}\s*;",
                       re.S)
    for text in sources.values():
        for name, body in table.findall(text):
            items = [i.strip() for i in body.split(",") if i.strip()]
            assert items and items[-1] == "NULL", "%s is not NULL-terminated" % name
            tables[name] = [_expand(i, defs) for i in items[:-1]]
    assert set(tables) == {"refnic_devargs_keys", "refnic_emu_devargs_keys"}, tables
    return tables


def code_xstats():
    """(port counter names, rx queue suffixes, tx queue suffixes) of refnic_xstats.c."""
    with open(os.path.join(SOURCE_DIRS[0], "refnic_xstats.c")) as f:
        text = _COMMENT.sub(" ", f.read())

    def array(name):
        m = re.search(r"\b%s\s*\[\]\s*=\s*\{(.*?)\n\}\s*;" % name, text, re.S)
        assert m, "no %s[] in refnic_xstats.c" % name
        return m.group(1)

    port = re.findall(r"PORT_XSTAT\(\s*(\w+)\s*\)", array("port_xstats"))
    entry = re.compile(r'(?:QUEUE_XSTAT\(|\{)\s*"(\w+)"')
    rxq = entry.findall(array("rxq_xstats"))
    txq = entry.findall(array("txq_xstats"))
    assert port and rxq and txq, (port, rxq, txq)
    return port, rxq, txq


# ---------------------------------------------------------------- the guide

def _guide():
    with open(GUIDE) as f:
        return f.read().split("\n")


def _section(lines, title):
    """The lines of a section of the guide, its title excluded."""
    start = next(i for i, l in enumerate(lines)
                 if l == title and i + 1 < len(lines) and re.fullmatch(r"-+", lines[i + 1]))
    end = next((i - 1 for i in range(start + 2, len(lines) - 1)
                if lines[i] and re.fullmatch(r"-+", lines[i + 1])
                and len(lines[i + 1]) == len(lines[i])), len(lines))
    return lines[start + 2:end]


def simple_table_first_column(lines, after):
    """First-column cells of the simple table that follows the line starting
    with AFTER: a list of (line number, text), continuation lines skipped."""
    i = next(n for n, l in enumerate(lines) if l.startswith(after))
    border = re.compile(r"=+(  +=+)+$")
    while not border.match(lines[i]):
        i += 1
    width = len(lines[i].split(" ")[0])
    # top border, header row(s), border under the header, body, bottom border
    i += 1
    while not border.match(lines[i]):
        i += 1
    cells = []
    for n in range(i + 1, len(lines)):
        line = lines[n]
        if border.match(line):
            return cells
        cell = line[:width].strip()
        if cell:
            cells.append((n + 1, cell))
    raise AssertionError("table after %r has no bottom border" % after)


def guide_devargs():
    """Keys in the first column of the guide's devargs table, in order."""
    keys = []
    for _, cell in simple_table_first_column(_guide(), ".. The one devargs table"):
        keys += re.findall(r"``([a-z][a-z0-9_]*)``", cell)
    return keys


def guide_xstats():
    """(port counter names in the table, per-queue names anywhere in the section)."""
    lines = _guide()
    port = []
    for _, cell in simple_table_first_column(lines, ".. New counters:"):
        port += re.findall(r"``([a-z][a-z0-9_]*)``", cell)
    section = "\n".join(_section(lines, "Extended Statistics"))
    queue = re.findall(r"``((?:rx|tx)_q<N>_[a-z0-9_]+)``", section)
    return port, queue


def rst_table_map(doc):
    """File names in the first column of the simple table after the comment
    '.. The file map' in DOC."""
    with open(doc) as f:
        lines = f.read().split("\n")
    assert any(l.startswith(".. The file map") for l in lines), \
        "%s has no file table (the comment '.. The file map' before it)" % doc
    names = []
    for _, cell in simple_table_first_column(lines, ".. The file map"):
        names += re.findall(r"``([^`]+)``", cell)
    return names


def rst_list_map(doc):
    """The first literal of each term of the definition list after the
    comment '.. The file map' in DOC, up to the next section."""
    with open(doc) as f:
        lines = f.read().split("\n")
    start = next((n for n, l in enumerate(lines) if l.startswith(".. The file map")), None)
    assert start is not None, "%s has no file list (the comment '.. The file map' before it)" % doc
    names = []
    for n in range(start + 1, len(lines) - 1):
        if lines[n] and re.fullmatch(r"-+", lines[n + 1]):
            break
        m = re.match(r"``([^`]+)``", lines[n])
        if m:
            names.append(m.group(1))
    return names


def readme_tour():
    """The paths that start the lines of README.md's tour (its code block)."""
    with open(os.path.join(REPO, "README.md")) as f:
        lines = f.read().split("\n")
    start = lines.index("## Tour")
    fence = next(n for n in range(start, len(lines)) if lines[n].startswith("```"))
    names = []
    for line in lines[fence + 1:]:
        if line.startswith("```"):
            return names
        if line and not line[0].isspace():
            names.append(line.split()[0])
    raise AssertionError("README.md's tour has no end")


def _ignored(name):
    """Not part of the checkout: VCS data, builds, caches, fuzzer artifacts."""
    return name.startswith((".", "build", "obj-", "__pycache__", "crash-", "leak-",
                            "timeout-", "oom-")) or name.endswith(".pyc")


def checkout_files(top):
    """Every file under TOP, relative to it, builds and caches left out."""
    out = []
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not _ignored(d)]
        out += [os.path.relpath(os.path.join(root, f), top) for f in files if not _ignored(f)]
    return out


def map_problems(doc, rows, entries, exists):
    """What is wrong with a map: ROWS as the doc has them, ENTRIES what
    must have a row, EXISTS(row) whether a row names something there."""
    problems = []
    dups = sorted({n for n in rows if rows.count(n) > 1})
    if dups:
        problems.append("named more than once in %s's map: %s" % (doc, dups))
    missing = sorted(set(entries) - set(rows))
    if missing:
        problems.append("missing from %s's map: %s" % (doc, missing))
    stale = sorted(n for n in set(rows) if not exists(n))
    if stale:
        problems.append("%s's map names what is not there: %s" % (doc, stale))
    return "; ".join(problems)


# ---------------------------------------------------------------- tests

def _diff(doc, code, what_code):
    missing = sorted(set(code) - set(doc))
    extra = sorted(set(doc) - set(code))
    msg = []
    if missing:
        msg.append("in %s but not in refnic.rst's table: %s" % (what_code, missing))
    if extra:
        msg.append("in refnic.rst's table but not in %s: %s" % (what_code, extra))
    return "; ".join(msg)


def test_devargs_table_lists_each_key_once():
    keys = guide_devargs()
    assert keys, "no devargs table found in refnic.rst"
    dups = sorted({k for k in keys if keys.count(k) > 1})
    assert not dups, "listed more than once in refnic.rst's devargs table: %s" % dups


def test_devargs_table_is_the_registered_param_string():
    """A key the PMD registers (what dpdk-pmdinfo.py shows) is in the table,
    and the table has no key the PMD does not register."""
    code = param_string_keys(registered_param_string())
    assert len(code) == len(set(code)), "a key registered twice: %s" % code
    problem = _diff(guide_devargs(), code, "RTE_PMD_REGISTER_PARAM_STRING")
    assert not problem, problem


def test_devargs_table_is_the_keys_the_probe_accepts():
    """The probe takes a key only if a *_devargs_keys[] table has it; the
    guide's table is exactly their union."""
    tables = accepted_keys()
    both = set(tables["refnic_devargs_keys"]) & set(tables["refnic_emu_devargs_keys"])
    assert not both, "keys both the driver and the device claim: %s" % sorted(both)
    code = tables["refnic_devargs_keys"] + tables["refnic_emu_devargs_keys"]
    problem = _diff(guide_devargs(), code, "the probe's key tables")
    assert not problem, problem


def test_devargs_table_is_what_pmdinfo_lists():
    """The same against the built PMD, as users see it (needs REFNIC_BUILD)."""
    build = os.environ.get("REFNIC_BUILD")
    tool = shutil.which("dpdk-pmdinfo.py")
    if not build or tool is None:
        pytest.skip("needs REFNIC_BUILD and dpdk-pmdinfo.py (Debian: dpdk)")
    pmd = os.path.join(build, "drivers", "librte_net_refnic.so")
    if not os.path.exists(pmd):
        pytest.skip("%s is not built" % pmd)
    res = subprocess.run([tool, pmd], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    drivers = json.loads(res.stdout)
    assert [d.get("name") for d in drivers] == ["net_refnic"], drivers
    problem = _diff(guide_devargs(), param_string_keys(drivers[0]["params"]),
                    "dpdk-pmdinfo.py's listing")
    assert not problem, problem


def test_xstats_table_is_the_drivers_counters():
    port, rxq, txq = code_xstats()
    doc_port, doc_queue = guide_xstats()
    dups = sorted({k for k in doc_port if doc_port.count(k) > 1})
    assert not dups, "listed more than once in refnic.rst's xstats table: %s" % dups
    problem = _diff(doc_port, port, "refnic_xstats.c's port_xstats[]")
    assert not problem, problem
    queue = ["rx_q<N>_" + s for s in rxq] + ["tx_q<N>_" + s for s in txq]
    problem = _diff(doc_queue, queue, "refnic_xstats.c's per-queue counters")
    assert not problem, problem.replace("table", "Extended Statistics section")


def test_device_design_map_names_every_device_file():
    """Each .c and .h of device/ and its folders (cable/NAME) has its row in
    DESIGN.rst's file table, once; every row names a file that is there."""
    files = [n for n in checkout_files(DEVICE) if n.endswith((".c", ".h"))]
    problem = map_problems("device/DESIGN.rst", rst_table_map(os.path.join(DEVICE, "DESIGN.rst")),
                           files, lambda n: os.path.exists(os.path.join(DEVICE, n)))
    assert not problem, problem


def test_driver_design_map_names_every_driver_file():
    """Each file of drivers/net/refnic/ (base/ too) but the design note
    itself has its row in DESIGN.rst's file table, once; every row is there."""
    files = [f for f in checkout_files(DRIVER) if f != "DESIGN.rst"]
    problem = map_problems("drivers/net/refnic/DESIGN.rst",
                           rst_table_map(os.path.join(DRIVER, "DESIGN.rst")),
                           files, lambda n: os.path.exists(os.path.join(DRIVER, n)))
    assert not problem, problem


def test_tests_readme_map_names_every_test_folder_and_file():
    """Each folder (as tests/NAME/) and file of tests/ but the README itself
    has its entry in tests/README.rst's layout, once; every entry is there."""
    entries = ["tests/" + n + ("/" if os.path.isdir(os.path.join(TESTS, n)) else "")
               for n in os.listdir(TESTS) if not _ignored(n) and n != "README.rst"]
    problem = map_problems("tests/README.rst", rst_list_map(os.path.join(TESTS, "README.rst")),
                           entries, lambda n: os.path.exists(os.path.join(REPO, n)))
    assert not problem, problem


def test_readme_tour_covers_the_checkout():
    """Every file of the checkout but README.md is in the tour, by its own
    row or under a folder row (a row ending in /); no row twice, none under
    another row's folder, none naming what is not there."""
    rows = readme_tour()
    folders = [r for r in rows if r.endswith("/")]
    nested = sorted(r for r in rows for f in folders if r != f and r.startswith(f))
    assert not nested, "README.md's tour has rows inside another row's folder: %s" % nested
    covered = [f for f in checkout_files(REPO) if f != "README.md"
               and f not in rows and not any(f.startswith(d) for d in folders)]
    problems = [map_problems("README.md", rows, [],
                             lambda n: os.path.exists(os.path.join(REPO, n)))]
    if covered:
        problems.append("missing from README.md's tour: %s" % sorted(covered))
    problem = "; ".join(p for p in problems if p)
    assert not problem, problem
