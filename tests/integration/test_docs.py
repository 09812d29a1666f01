"""The user guide's tables agree with the code (issue 24, one home per fact).

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

device/DESIGN.rst's file table (the map of device/) names every .c and .h
of device/, and no file that is not there.

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


def device_map():
    """File names in the first column of device/DESIGN.rst's file table."""
    with open(os.path.join(DEVICE, "DESIGN.rst")) as f:
        lines = f.read().split("\n")
    assert any(l.startswith(".. The file map") for l in lines), \
        "device/DESIGN.rst has no file table (the comment '.. The file map' before it)"
    names = []
    for _, cell in simple_table_first_column(lines, ".. The file map"):
        names += re.findall(r"``([^`]+)``", cell)
    return names


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
    """Each .c and .h of device/ has its row in DESIGN.rst's file table, once;
    every row names a file that is there."""
    files = {n for n in os.listdir(DEVICE) if n.endswith((".c", ".h"))}
    rows = device_map()
    dups = sorted({n for n in rows if rows.count(n) > 1})
    assert not dups, "named more than once in device/DESIGN.rst's file table: %s" % dups
    missing = sorted(files - set(rows))
    assert not missing, "device/ files missing from DESIGN.rst's file table: %s" % missing
    gone = sorted(n for n in rows if not os.path.exists(os.path.join(DEVICE, n)))
    assert not gone, "device/DESIGN.rst's file table names files not in device/: %s" % gone
